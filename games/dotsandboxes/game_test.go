package dotsandboxes

import (
	"encoding/json"
	"math/bits"
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// board draws the listed edges without scoring, to build a position by hand.
func board(toMove int, edges ...Edge) *State {
	s := NewState(42)
	for _, e := range edges {
		s.Drawn |= 1 << uint(e)
	}
	s.ToMove = int8(toMove)
	return s
}

func line(e Edge) []byte { return e.AppendJSON(nil) }

// applyMover applies an answer for the seat to move, and a throwaway one
// for the other seat, as the runner would.
func applyMover(t *testing.T, s *State, ans []byte) []game.Verdict {
	t.Helper()
	answers := make([][]byte, 2)
	answers[s.ToMove] = ans
	answers[1-s.ToMove] = []byte(`{"orient":"H","r":0,"c":0}`)
	return s.Apply(answers)
}

func TestClosingOneBoxEarnsAnotherMove(t *testing.T) {
	s := board(1, H(0, 0), H(1, 0), V(0, 0)) // box (0,0) has three sides
	v := applyMover(t, s, line(V(0, 1)))
	if v[1].Status != game.OK || v[0].Status != game.Ignored {
		t.Fatalf("verdicts %+v", v)
	}
	if s.Owner(0, 0) != 1 || s.Score(1) != 1 || s.Score(0) != 0 {
		t.Fatalf("box (0,0) owner %d, scores %d-%d", s.Owner(0, 0), s.Score(0), s.Score(1))
	}
	if s.ToMove != 1 {
		t.Fatalf("seat 1 closed a box and should move again, to_move is %d", s.ToMove)
	}
}

func TestOneEdgeClosesTwoBoxes(t *testing.T) {
	// Boxes (2,1) and (2,2) share V(2,2); every other side of both is drawn.
	s := board(0, H(2, 1), H(3, 1), V(2, 1), H(2, 2), H(3, 2), V(2, 3))
	applyMover(t, s, line(V(2, 2)))
	if s.Score(0) != 2 || s.Owner(2, 1) != 0 || s.Owner(2, 2) != 0 {
		t.Fatalf("want both boxes for seat 0, scores %d-%d", s.Score(0), s.Score(1))
	}
	if s.ToMove != 0 {
		t.Fatal("closing two boxes earns one more move, like one box")
	}
}

func TestNoBoxPassesTheMove(t *testing.T) {
	s := board(0)
	applyMover(t, s, line(H(3, 3)))
	if s.ToMove != 1 || s.Score(0) != 0 {
		t.Fatalf("to_move %d, score %d", s.ToMove, s.Score(0))
	}
}

func TestBadAnswersGetTheFirstUndrawnEdge(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer []byte
		status game.Status
	}{
		{"missing (bot failure)", nil, ""},
		{"not JSON", []byte("draw the top edge"), game.Malformed},
		{"empty object", []byte(`{}`), game.Malformed},
		{"array", []byte(`[1,2,3]`), game.Malformed},
		{"orient lower case", []byte(`{"orient":"h","r":0,"c":0}`), game.Malformed},
		{"orient unknown", []byte(`{"orient":"D","r":0,"c":0}`), game.Malformed},
		{"r as string", []byte(`{"orient":"H","r":"1","c":0}`), game.Malformed},
		{"r fractional", []byte(`{"orient":"H","r":1.5,"c":0}`), game.Malformed},
		{"H row past the board", []byte(`{"orient":"H","r":6,"c":0}`), game.Illegal},
		{"H column past the board", []byte(`{"orient":"H","r":0,"c":5}`), game.Illegal},
		{"V row past the board", []byte(`{"orient":"V","r":5,"c":0}`), game.Illegal},
		{"V column past the board", []byte(`{"orient":"V","r":0,"c":6}`), game.Illegal},
		{"negative", []byte(`{"orient":"V","r":-1,"c":0}`), game.Illegal},
		{"already drawn", []byte(`{"orient":"H","r":0,"c":1}`), game.Illegal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := board(0, H(0, 0), H(0, 1)) // the first undrawn edge is H(0,2)
			v := applyMover(t, s, tc.answer)
			if v[0].Status != tc.status {
				t.Errorf("status %q, want %q (%s)", v[0].Status, tc.status, v[0].Reason)
			}
			if tc.status != "" && v[0].Reason == "" {
				t.Error("a refused answer needs a reason")
			}
			if !s.IsDrawn(H(0, 2)) || s.Turn() != 3 {
				t.Errorf("the default H(0, 2) was not drawn")
			}
			if string(v[0].Action) != `{"orient":"H","r":0,"c":2}` {
				t.Errorf("applied action %s", v[0].Action)
			}
		})
	}
}

func TestDefaultOrderIsHRowByRowThenV(t *testing.T) {
	s := NewState(1)
	var order []string
	for !s.Done() {
		applyMover(t, s, []byte("garbage"))
		last := ""
		for e := Edge(0); e < NumEdges; e++ {
			if s.IsDrawn(e) {
				last = e.String()
			}
		}
		order = append(order, last)
	}
	if order[0] != "H(0, 0)" || order[4] != "H(0, 4)" || order[5] != "H(1, 0)" ||
		order[29] != "H(5, 4)" || order[30] != "V(0, 0)" || order[35] != "V(0, 5)" || order[59] != "V(4, 5)" {
		t.Fatalf("default order: %v", order)
	}
}

func TestObservationMatchesThePage(t *testing.T) {
	s := board(1, H(0, 0), V(4, 5))
	s.Owned[0] = 1 << 24 // box (4,4)
	obs := s.AppendObservation(nil, 0)
	var o Observation
	dec := json.NewDecoder(strings.NewReader(string(obs)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("%s: %v", obs, err)
	}
	if o.You != 0 || o.ToMove != 1 || o.Rows != 5 || o.Cols != 5 || o.Turn != 2 || o.Nonce != 42 {
		t.Fatalf("header fields: %+v", o)
	}
	if len(o.H) != 6 || len(o.H[0]) != 5 || len(o.V) != 5 || len(o.V[0]) != 6 || len(o.Owner) != 5 || len(o.Owner[4]) != 5 {
		t.Fatalf("shapes: h %dx%d v %dx%d", len(o.H), len(o.H[0]), len(o.V), len(o.V[0]))
	}
	if !o.H[0][0] || !o.V[4][5] || o.H[0][1] || o.V[0][0] {
		t.Fatalf("edges wrong: %s", obs)
	}
	if o.Owner[4][4] != 0 || o.Owner[0][0] != -1 || o.Scores[0] != 1 || o.Scores[1] != 0 {
		t.Fatalf("owners or scores wrong: %s", obs)
	}
	wantKeys := `{"you":0,"to_move":1,"rows":5,"cols":5,"h":[[true,false`
	if !strings.HasPrefix(string(obs), wantKeys) || !strings.HasSuffix(string(obs), `"turn":2,"nonce":42}`) {
		t.Fatalf("field order differs from the page: %s", obs)
	}
}

func TestNonceComesFromTheSeed(t *testing.T) {
	a, _ := Game{}.New(game.Config{Seed: 7, Players: 2})
	b, _ := Game{}.New(game.Config{Seed: 7, Players: 2})
	c, _ := Game{}.New(game.Config{Seed: 8, Players: 2})
	na, nb, nc := a.(*State).Nonce, b.(*State).Nonce, c.(*State).Nonce
	if na != nb || na == nc || na < 0 || na >= 1<<31 {
		t.Fatalf("nonces %d %d %d", na, nb, nc)
	}
	if _, err := (Game{}).New(game.Config{Players: 3}); err == nil {
		t.Fatal("3 players accepted")
	}
	if _, err := (Game{}).New(game.Config{Players: 2, Params: game.Params{"rows": "6"}}); err == nil {
		t.Fatal("an unknown parameter was accepted")
	}
}

// TestRandomGames plays thousands of random games, with random garbage mixed
// in, and checks the invariants: exactly 60 turns, every edge drawn once,
// the scores sum to 25 and match the owners, the mover rule holds.
func TestRandomGames(t *testing.T) {
	src := rng.New(99)
	for g := 0; g < 3000; g++ {
		s := NewState(int64(g))
		turns := 0
		for !s.Done() {
			before := *s
			var ans []byte
			switch src.Intn(10) {
			case 0:
				ans = []byte("{")
			case 1:
				ans = line(Edge(bits.TrailingZeros64(s.Drawn | 1<<63))) // often already drawn
			default:
				free := s.Undrawn()
				ans = line(nthBit(free, src.Intn(bits.OnesCount64(free))))
			}
			applyMover(t, s, ans)
			turns++
			added := s.Drawn &^ before.Drawn
			if bits.OnesCount64(added) != 1 || before.Drawn&^s.Drawn != 0 {
				t.Fatalf("game %d turn %d: drew %d edges", g, turns, bits.OnesCount64(added))
			}
			closed := s.Score(int(before.ToMove)) - before.Score(int(before.ToMove))
			if (closed == 0) != (s.ToMove != before.ToMove) {
				t.Fatalf("game %d turn %d: closed %d boxes, mover %d -> %d", g, turns, closed, before.ToMove, s.ToMove)
			}
		}
		if turns != NumEdges || s.Score(0)+s.Score(1) != NumBoxes || s.Owned[0]&s.Owned[1] != 0 {
			t.Fatalf("game %d: %d turns, scores %d+%d", g, turns, s.Score(0), s.Score(1))
		}
		if p := s.Placement(); s.Score(p[0]) <= s.Score(p[1]) {
			t.Fatalf("game %d: placement %v for scores %d-%d", g, p, s.Score(0), s.Score(1))
		}
	}
}

func FuzzParseAction(f *testing.F) {
	for _, seed := range []string{
		`{"orient":"H","r":2,"c":3}`, `{"orient":"V","r":4,"c":5}`, `{}`, `null`, `[]`, `{"orient":"H","r":99999999999999999999,"c":0}`,
		`{"orient":"V","r":-1,"c":0}`, `{"orient":"H","r":0,"c":0,"extra":true}`, "\xff\xfe", ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := board(0, H(0, 0))
		e, status, reason := s.ParseAction(data)
		switch status {
		case game.OK:
			if e < 0 || e >= NumEdges || s.IsDrawn(e) || reason != "" {
				t.Fatalf("%q accepted as %v", data, e)
			}
			// An accepted answer names the edge its canonical form names.
			if e2, st2, _ := s.ParseAction(e.AppendJSON(nil)); e2 != e || st2 != game.OK {
				t.Fatalf("%v does not round-trip", e)
			}
		case game.Illegal, game.Malformed:
			if e != NoEdge || reason == "" {
				t.Fatalf("%q refused without reason or with edge %v", data, e)
			}
		default:
			t.Fatalf("status %q", status)
		}
		before := *s
		v := applyMover(t, s, data)
		if s.Turn() != before.Turn()+1 || v[0].Action == nil {
			t.Fatal("Apply did not draw exactly one edge")
		}
	})
}
