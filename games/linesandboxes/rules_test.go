package linesandboxes

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

func newBoard(t testing.TB, rows, cols int, board string) *State {
	t.Helper()
	s, err := NewState(1, game.Params{"rows": itoa(rows), "cols": itoa(cols), "board": board})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func itoa(n int) string { return string(rune('0' + n)) }

// answer answers for the seat to move and returns its verdict.
func answer(t testing.TB, s *State, line string) game.Verdict {
	t.Helper()
	answers := make([][]byte, 2)
	seat := s.ToMove()
	answers[seat] = []byte(line)
	v := s.Apply(answers)
	if v[1-seat].Status != "" || v[1-seat].Action != nil {
		t.Fatalf("the seat not to move got a verdict: %+v", v[1-seat])
	}
	return v[seat]
}

func mustPlay(t testing.TB, s *State, from, to string) {
	t.Helper()
	if v := answer(t, s, `{"from":"`+from+`","to":"`+to+`"}`); v.Status != game.OK {
		t.Fatalf("%s-%s: %s %s", from, to, v.Status, v.Reason)
	}
}

func TestParseVertex(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Vertex
		ok   bool
	}{
		{"A1", Vertex{0, 0}, true}, {"c4", Vertex{2, 3}, true}, {"I9", Vertex{8, 8}, true},
		{"Z12", Vertex{25, 11}, true}, // well formed, off any board: illegal, not malformed
		{"A0", Vertex{}, false}, {"A", Vertex{}, false}, {"1A", Vertex{}, false},
		{"A-1", Vertex{}, false}, {"AA1", Vertex{}, false}, {"A01", Vertex{}, false}, {"", Vertex{}, false},
	} {
		got, err := ParseVertex(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseVertex(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestMultiEdgeMoveAndOverlap(t *testing.T) {
	s := newBoard(t, 3, 3, "")
	mustPlay(t, s, "C1", "A1") // either order; draws A1-B1 and B1-C1
	if !s.drawn.has(s.g.h(0, 0)) || !s.drawn.has(s.g.h(0, 1)) || s.drawn.has(s.g.h(0, 2)) {
		t.Fatal("A1-C1 did not draw exactly its two edges")
	}
	if got := s.Moves()[0].Seg.String(); got != "A1-C1" {
		t.Errorf("recorded %s, want A1-C1", got)
	}
	for _, bad := range []string{`{"from":"B1","to":"D1"}`, `{"from":"A1","to":"B1"}`, `{"from":"A1","to":"D1"}`} {
		turn := s.Turn()
		v := answer(t, s, bad)
		if v.Status != game.Illegal || !strings.Contains(v.Reason, "overlaps") {
			t.Errorf("%s: %s %q, want illegal overlap", bad, v.Status, v.Reason)
		}
		if s.Turn() != turn+1 {
			t.Error("an illegal answer did not end the turn")
		}
	}
	// Touching an earlier line at a dot is fine. (The defaults above drew
	// C1-D1, A2-B2 and B2-C2, so the first free edge of row 1 is gone.)
	mustPlay(t, s, "C2", "D2")
}

func TestIllegalAndMalformed(t *testing.T) {
	s := newBoard(t, 3, 4, "")
	for _, c := range []struct {
		answer string
		want   game.Status
	}{
		{`{"from":"A1","to":"A1"}`, game.Illegal},
		{`{"from":"A1","to":"B2"}`, game.Illegal},
		{`{"from":"A1","to":"F1"}`, game.Illegal}, // 4 columns: letters A..E
		{`{"from":"A1","to":"A5"}`, game.Illegal}, // 3 rows: numbers 1..4
		{`{"from":"A1"}`, game.Malformed},
		{`{"from":"A1","to":7}`, game.Malformed},
		{`{"from":"A1","to":"B"}`, game.Malformed},
		{`"A1 B1"`, game.Malformed},
		{`null`, game.Malformed},
		{`{"from":"e4","to":"E3","note":"extra fields are fine"}`, game.OK},
	} {
		v := answer(t, s, c.answer)
		if v.Status != c.want {
			t.Errorf("%s: got %s (%s), want %s", c.answer, v.Status, v.Reason, c.want)
		}
	}
}

func TestDefaultMoveOrder(t *testing.T) {
	s := newBoard(t, 3, 3, "")
	v := answer(t, s, "garbage")
	if v.Status != game.Malformed || string(v.Action) != `{"from":"A1","to":"B1"}` {
		t.Fatalf("default %s %s, want malformed A1-B1", v.Status, v.Action)
	}
	// A missing answer (a bot failure) gets the default with an empty status.
	v = s.Apply(make([][]byte, 2))[s.toMove^1]
	if v.Status != "" || string(v.Action) != `{"from":"B1","to":"C1"}` {
		t.Fatalf("default %q %s, want B1-C1", v.Status, v.Action)
	}
	// With every horizontal edge drawn, the first vertical one comes next.
	s = newBoard(t, 3, 3, "A1-D1,A2-D2,A3-D3,A4-D4,A1-A2")
	if got := s.DefaultMove().String(); got != "B1-B2" {
		t.Errorf("default %s, want B1-B2", got)
	}
}

func TestCaptureAndAlternation(t *testing.T) {
	// Column B is a ladder: B1-B4 and C1-C4 drawn with the top of the column.
	s := newBoard(t, 3, 3, "B1-B4,C1-C4,B1-C1")
	mustPlay(t, s, "B2", "C2") // seat 0 closes box B1
	if s.Owner(0, 1) != 0 || s.scores != [2]int64{1, 0} {
		t.Fatalf("box B1 owner %d, scores %v", s.Owner(0, 1), s.scores)
	}
	if s.ToMove() != 1 {
		t.Fatal("a capture gave another turn")
	}
	// One vertical line closes two boxes at once: seat 1 and seat 0 draw
	// the tops and bottoms of boxes A1 and A2, then seat 0's A1-A3 closes both.
	mustPlay(t, s, "A1", "B1")
	mustPlay(t, s, "A2", "B2")
	mustPlay(t, s, "A3", "B3")
	if s.ToMove() != 0 {
		t.Fatal("turns did not alternate")
	}
	mustPlay(t, s, "A1", "A3")
	if s.Owner(0, 0) != 0 || s.Owner(1, 0) != 0 || s.scores != [2]int64{3, 0} {
		t.Fatalf("owners %d %d, scores %v; want both boxes to seat 0", s.Owner(0, 0), s.Owner(1, 0), s.scores)
	}
	// A line can close boxes on both of its sides: B3-C3 bounds B2 (above)
	// and B3 (below) once their other sides are drawn.
	s = newBoard(t, 3, 3, "B1-B4,C1-C4,B2-C2,B4-C4")
	mustPlay(t, s, "B3", "C3")
	if s.scores != [2]int64{2, 0} {
		t.Fatalf("scores %v, want two boxes for seat 0 from one unit edge", s.scores)
	}
}

func TestPreDrawnBoxBelongsToNobody(t *testing.T) {
	f, err := ParseInputFile([]byte(sample2))
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Replay()
	if err != nil {
		t.Fatal(err)
	}
	if s.Owner(1, 0) != Nobody || s.scores != [2]int64{0, 0} || s.ToMove() != 0 || s.Turn() != 0 {
		t.Fatalf("box A2 owner %d, scores %v, to move %d", s.Owner(1, 0), s.scores, s.ToMove())
	}
	o := s.Observe(0)
	if o.Boxes[1][0] != -2 || o.Moves[0].Player != -1 {
		t.Errorf("observation boxes %v moves %v", o.Boxes, o.Moves)
	}
}

func TestEndAndTie(t *testing.T) {
	// Everything but the last two edges of a 3x3 board is pre-drawn: boxes
	// A1 and C3 remain, one for each player.
	var lines []string
	s := newBoard(t, 3, 3, "")
	for e := 0; e < s.g.n; e++ {
		seg := s.g.edgeSegment(e).String()
		if seg != "A1-B1" && seg != "C4-D4" {
			lines = append(lines, seg)
		}
	}
	s = newBoard(t, 3, 3, strings.Join(lines, ","))
	mustPlay(t, s, "A1", "B1")
	if s.Done() {
		t.Fatal("done with a line left")
	}
	mustPlay(t, s, "C4", "D4")
	if !s.Done() || s.Asked() != nil {
		t.Fatal("not done with no line left")
	}
	if s.scores != [2]int64{1, 1} {
		t.Fatalf("scores %v, want a 1-1 tie", s.scores)
	}
	if p := s.Placement(); p[0] != 0 || p[1] != 1 {
		t.Errorf("placement %v on a tie, want seat 0 first", p)
	}
	// A board with nothing left to draw is refused as a start.
	lines = append(lines, "A1-B1", "C4-D4")
	if _, err := NewState(1, game.Params{"rows": "3", "cols": "3", "board": strings.Join(lines, ",")}); err == nil {
		t.Error("accepted a full starting board")
	}
}

func TestParamsRebuildTheBoard(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		s, err := NewState(seed, game.Params{"rows": "0", "cols": "0", "predrawn": "-1"})
		if err != nil {
			t.Fatal(err)
		}
		again, err := NewState(seed+1000, s.Params())
		if err != nil {
			t.Fatalf("seed %d: %v (params %v)", seed, err, s.Params())
		}
		if again.Hash() != s.Hash() {
			t.Fatalf("seed %d: params %v rebuild a different board", seed, s.Params())
		}
		same, _ := NewState(seed, game.Params{"rows": "0", "cols": "0", "predrawn": "-1"})
		if same.Hash() != s.Hash() {
			t.Fatalf("seed %d: not reproducible", seed)
		}
	}
}

func TestBadParams(t *testing.T) {
	for _, p := range []game.Params{
		{"rows": "2"}, {"cols": "9"}, {"rows": "x"}, {"predrawn": "-2"}, {"size": "5"},
		{"board": "A1-C3"}, {"board": "A1-B1,A1-C1"}, {"board": "A1"}, {"board": "A1-Z1"},
	} {
		if _, err := (Game{}).New(game.Config{Seed: 1, Players: 2, Params: p}); err == nil {
			t.Errorf("params %v accepted", p)
		}
	}
	if _, err := (Game{}).New(game.Config{Players: 3}); err == nil {
		t.Error("3 players accepted")
	}
}

func TestObservation(t *testing.T) {
	s := newBoard(t, 3, 4, "A1-A2")
	mustPlay(t, s, "A1", "C1")
	mustPlay(t, s, "E2", "D2")
	var o Observation
	if err := json.Unmarshal(s.AppendObservation(nil, 1), &o); err != nil {
		t.Fatal(err)
	}
	if o.Rows != 3 || o.Cols != 4 || o.You != 1 || o.ToMove != 0 || o.Turn != 2 || o.FuelPerGame != FuelPerGame {
		t.Errorf("header %+v", o)
	}
	if len(o.H) != 4 || len(o.H[0]) != 4 || len(o.V) != 3 || len(o.V[0]) != 5 || len(o.Boxes) != 3 {
		t.Fatalf("grid shapes h %d v %d boxes %d", len(o.H), len(o.V), len(o.Boxes))
	}
	if !o.H[0][0] || !o.H[0][1] || o.H[0][2] || !o.H[1][3] || !o.V[0][0] || o.V[0][1] {
		t.Errorf("edges h %v v %v", o.H, o.V)
	}
	want := []ObsMove{{-1, "A1", "A2"}, {0, "A1", "C1"}, {1, "D2", "E2"}}
	for i, m := range want {
		if o.Moves[i] != m {
			t.Errorf("move %d = %+v, want %+v", i, o.Moves[i], m)
		}
	}
}

// TestRandomGames plays many games of random and bad answers on random
// boards and checks the invariants: each unit edge drawn exactly once, every
// box owned by a seat or by nobody, boxes + ownerless = all boxes, and the
// recorded actions replay to the same state.
func TestRandomGames(t *testing.T) {
	games := 300
	if testing.Short() {
		games = 50
	}
	for i := 0; i < games; i++ {
		seed := uint64(i)
		s := randomBoard(t, seed)
		start := s.Params()
		src := rng.New(seed)
		var actions [][]byte
		bot := &randomBot{src: src}
		for !s.Done() {
			line := bot.Act(s, s.ToMove())
			if src.Intn(10) == 0 {
				line = []byte(`{"from":"A1","to":"A2"}`) // often illegal
			}
			v := answer(t, s, string(line))
			actions = append(actions, v.Action)
		}
		count := make([]int, s.g.n)
		for _, m := range s.moves {
			edges, err := s.g.segmentEdges(m.Seg, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range edges {
				count[e]++
			}
		}
		for e, n := range count {
			if n != 1 {
				t.Fatalf("seed %d: edge %v drawn %d times", seed, s.g.edgeSegment(e), n)
			}
		}
		nobody := int64(0)
		for _, o := range s.owner {
			switch o {
			case Nobody:
				nobody++
			case Open:
				t.Fatalf("seed %d: a box is open at the end", seed)
			}
		}
		if s.scores[0]+s.scores[1]+nobody != int64(len(s.owner)) {
			t.Fatalf("seed %d: scores %v + %d ownerless != %d boxes", seed, s.scores, nobody, len(s.owner))
		}
		again, err := NewState(seed+1, start)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range actions {
			if v := answer(t, again, string(a)); v.Status != game.OK {
				t.Fatalf("seed %d: recorded action %s: %s", seed, a, v.Reason)
			}
		}
		if again.Hash() != s.Hash() {
			t.Fatalf("seed %d: replaying the actions gives another state", seed)
		}
	}
}

// TestGolden pins whole games between house bots by their final hash, so any
// change to the rules, the random boards or the bots' play shows.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		params game.Params
		bots   [2]string
		want   uint64
	}{
		{game.Params{"rows": "6", "cols": "4", "predrawn": "5"}, [2]string{"greedy", "random"}, 0x65390f954f3c73e0},
		{game.Params{"rows": "0", "cols": "0", "predrawn": "-1"}, [2]string{"search", "greedy"}, 0xfe13119c94096bb},
	} {
		s, err := NewState(42, c.params)
		if err != nil {
			t.Fatal(err)
		}
		playGame(t, s, [2]game.HouseBot{houseBot(t, c.bots[0], 1, 0), houseBot(t, c.bots[1], 2, 1)})
		if got := s.Hash(); got != c.want {
			t.Errorf("%v %v: hash %#x, scores %v, board %v; want %#x", c.bots, c.params, got, s.scores, s.Params(), c.want)
		}
	}
}

func FuzzParseAction(f *testing.F) {
	for _, seed := range []string{`{"from":"A1","to":"B1"}`, `{"from":"c3","to":"C1"}`, `{}`, `null`, `{"from":"A0","to":"A1"}`, `[1,2]`, `{"from":"Z99","to":"A1"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		seg, err := ParseAction(line)
		if err != nil {
			return
		}
		// A parsed action is canonical and round-trips through its JSON.
		if NewSegment(seg.From, seg.To) != seg {
			t.Fatalf("not canonical: %v", seg)
		}
		again, err := ParseAction(ActionJSON(seg))
		if err != nil || again != seg {
			t.Fatalf("round trip of %v: %v, %v", seg, again, err)
		}
		// Applying it never panics, whatever it is.
		s := newBoard(t, 3, 3, "")
		v := answer(t, s, string(line))
		if v.Action == nil {
			t.Fatal("no move applied")
		}
	})
}

func TestRender(t *testing.T) {
	// Box A2 closed by pre-drawn lines, box B1 taken by seat 0.
	s := newBoard(t, 3, 3, "A2-A3,A2-B2,B2-B3,A3-B3,B1-C1,C1-C2,B1-B2")
	mustPlay(t, s, "B2", "C2")
	var out strings.Builder
	s.Render(&out, false)
	want := `Lines and Boxes 3x3, turn 1: seat 0 has 1, seat 1 has 0, seat 1 to move
    A   B   C   D
 1  o   o---o   o
        | 0 |
 2  o---o---o   o
    | # |
 3  o---o   o   o

 4  o   o   o   o
`
	if out.String() != want {
		t.Errorf("render:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	s.Render(&out, true)
	if !strings.Contains(out.String(), "\x1b[31m 0 \x1b[0m") {
		t.Errorf("colour render has no red seat 0 box:\n%q", out.String())
	}
}

// BenchmarkGame plays whole 8x8 games of random moves through Apply, with an
// observation built for the mover every turn, as the runner does.
func BenchmarkGame(b *testing.B) {
	var buf []byte
	for i := 0; i < b.N; i++ {
		s, err := NewState(uint64(i), game.Params{"rows": "8", "cols": "8"})
		if err != nil {
			b.Fatal(err)
		}
		bot := &randomBot{src: rng.New(uint64(i))}
		for !s.Done() {
			seat := s.ToMove()
			buf = s.AppendObservation(buf[:0], seat)
			answers := make([][]byte, 2)
			answers[seat] = bot.Act(s, seat)
			s.Apply(answers)
		}
	}
}
