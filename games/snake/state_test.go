package snake

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
)

// board builds a position on a w x h board from one string per snake:
// "health:x,y x,y ..." (head first), and food as "x,y" cells.
func board(t *testing.T, w, h int, food []string, snakes ...string) *State {
	t.Helper()
	set := DefaultSettings()
	set.Width, set.Height = w, h
	set.MinimumFood, set.FoodSpawnChance = 0, 0 // no new food unless a case asks for it
	s := &State{Set: set, N: len(snakes), Seed: 1, Snakes: make([]Snake, len(snakes))}
	for i, desc := range snakes {
		hp, cells, _ := strings.Cut(desc, ":")
		var health int
		fmt.Sscan(hp, &health)
		sn := Snake{Health: health}
		for _, c := range strings.Fields(cells) {
			sn.Body = append(sn.Body, pt(t, c))
		}
		s.Snakes[i] = sn
	}
	for _, f := range food {
		s.Food = append(s.Food, pt(t, f))
	}
	s.refreshAsked()
	return s
}

func pt(t *testing.T, c string) Point {
	t.Helper()
	var p Point
	if _, err := fmt.Sscanf(c, "%d,%d", &p.X, &p.Y); err != nil {
		t.Fatalf("cell %q: %v", c, err)
	}
	return p
}

func cells(t *testing.T, list string) []Point {
	var out []Point
	for _, c := range strings.Fields(list) {
		out = append(out, pt(t, c))
	}
	return out
}

// move answers for every seat: "up", "", "{junk" ... ("" is no answer).
func turn(s *State, answers ...string) []game.Verdict {
	lines := make([][]byte, len(answers))
	for i, a := range answers {
		switch {
		case a == "":
		case strings.HasPrefix(a, "{"):
			lines[i] = []byte(a)
		default:
			lines[i] = []byte(`{"move":"` + a + `"}`)
		}
	}
	return s.Apply(lines)
}

// TestRules pins every rule of a turn on a hand-built position: the
// snakes' bodies, health and fate after one turn.
func TestRules(t *testing.T) {
	type want struct {
		body   string // head first; "" to skip
		health int
		cause  string // "" alive
	}
	cases := []struct {
		name    string
		w, h    int
		food    []string
		snakes  []string
		answers []string
		want    []want
	}{
		{"a move drops the tail", 7, 7, nil,
			[]string{"90:3,3 3,2 3,1"}, []string{"up"},
			[]want{{"3,4 3,3 3,2", 89, ""}}},
		{"up is y+1, right is x+1", 7, 7, nil,
			[]string{"90:3,3 3,2 3,1", "90:1,5 0,5 0,4"}, []string{"right", "down"},
			[]want{{"4,3 3,3 3,2", 89, ""}, {"1,4 1,5 0,5", 89, ""}}},
		{"no answer: on from the neck", 7, 7, nil,
			[]string{"90:3,3 2,3 1,3", "90:5,5 5,6 5,6"}, []string{"", ""},
			[]want{{"4,3 3,3 2,3", 89, ""}, {"5,4 5,5 5,6", 89, ""}}},
		{"a stacked start moves up by default", 7, 7, nil,
			[]string{"100:1,1 1,1 1,1", "100:5,5 5,5 5,5"}, []string{`{"move":"north"}`, "{"},
			[]want{{"1,2 1,1 1,1", 99, ""}, {"5,6 5,5 5,5", 99, ""}}},
		{"moving back into the neck is a self collision", 7, 7, nil,
			[]string{"90:3,3 3,2 3,1", "90:0,6 1,6 2,6"}, []string{"down", "left"},
			[]want{{"3,2 3,3 3,2", 89, Self}, {"", 89, Wall}}},
		{"starving: health 1 to 0 without food", 7, 7, nil,
			[]string{"1:3,3 3,2 3,1", "50:5,5 5,4 5,3"}, []string{"up", "up"},
			[]want{{"3,4 3,3 3,2", 0, OutOfHealth}, {"5,6 5,5 5,4", 49, ""}}},
		{"food at health 1 saves the snake and it grows", 7, 7, []string{"3,4"},
			[]string{"1:3,3 3,2 3,1", "50:5,5 5,4 5,3"}, []string{"up", "up"},
			[]want{{"3,4 3,3 3,2 3,2", 100, ""}, {"5,6 5,5 5,4", 49, ""}}},
		{"the wall: the head off the board", 7, 7, nil,
			[]string{"90:6,3 5,3 4,3", "90:1,1 1,2 1,3"}, []string{"right", "down"},
			[]want{{"7,3 6,3 5,3", 89, Wall}, {"1,0 1,1 1,2", 89, ""}}},
		{"a tail that moves on is free", 7, 7, nil,
			[]string{"90:3,3 3,4 4,4 4,3", "90:0,0 1,0 2,0"}, []string{"right", "up"},
			[]want{{"4,3 3,3 3,4 4,4", 89, ""}, {"0,1 0,0 1,0", 89, ""}}},
		{"a tail doubled by a meal stays", 7, 7, nil,
			[]string{"90:3,3 3,4 4,4 4,3 4,3", "90:0,0 1,0 2,0"}, []string{"right", "up"},
			[]want{{"4,3 3,3 3,4 4,4 4,3", 89, Self}, {"0,1 0,0 1,0", 89, ""}}},
		{"another snake's body", 7, 7, nil,
			[]string{"90:2,3 1,3 0,3", "90:3,4 3,3 3,2 3,1"}, []string{"right", "up"},
			[]want{{"3,3 2,3 1,3", 89, Body}, {"3,5 3,4 3,3 3,2", 89, ""}}},
		{"another snake's tail that moves on", 7, 7, nil,
			[]string{"90:2,1 1,1 0,1", "90:3,4 3,3 3,2 3,1"}, []string{"right", "up"},
			[]want{{"3,1 2,1 1,1", 89, ""}, {"3,5 3,4 3,3 3,2", 89, ""}}},
		{"head to head: the longer one wins", 7, 7, nil,
			[]string{"90:2,3 1,3 0,3", "90:4,3 5,3 6,3 6,4"}, []string{"right", "left"},
			[]want{{"3,3 2,3 1,3", 89, HeadToHead}, {"3,3 4,3 5,3 6,3", 89, ""}}},
		{"head to head of equal lengths: both go", 7, 7, nil,
			[]string{"90:2,3 1,3 0,3", "90:4,3 5,3 6,3"}, []string{"right", "left"},
			[]want{{"", 89, HeadToHead}, {"", 89, HeadToHead}}},
		{"two heads on one food both eat, then meet", 7, 7, []string{"3,3"},
			[]string{"90:2,3 1,3 0,3", "20:4,3 5,3 6,3 6,4"}, []string{"right", "left"},
			[]want{{"3,3 2,3 1,3 1,3", 100, HeadToHead}, {"3,3 4,3 5,3 6,3 6,3", 100, ""}}},
		{"a snake out by the wall neither blocks nor fights", 7, 7, nil,
			[]string{"0:3,3 3,2 3,1 3,0", "90:2,2 1,2 0,2"}, []string{"up", "right"},
			[]want{{"3,4 3,3 3,2 3,1", -1, OutOfHealth}, {"3,2 2,2 1,2", 89, ""}}},
		{"a snake out by a collision still blocks: applied together", 7, 7, nil,
			[]string{"90:5,3 5,4 5,5", "90:5,2 4,2 4,1 4,0"}, []string{"down", "left"},
			[]want{{"5,2 5,3 5,4", 89, Body}, {"4,2 5,2 4,2 4,1", 89, Self}}},
		{"three heads on one cell: only a strictly longest survives", 9, 9, nil,
			[]string{"90:3,4 2,4 1,4 1,3", "90:5,4 6,4 7,4", "90:4,5 4,6 4,7"}, []string{"right", "left", "down"},
			[]want{{"4,4 3,4 2,4 1,4", 89, ""}, {"", 89, HeadToHead}, {"", 89, HeadToHead}}},
		{"three heads of one length: all go", 9, 9, nil,
			[]string{"90:3,4 2,4 1,4", "90:5,4 6,4 7,4", "90:4,5 4,6 4,7"}, []string{"right", "left", "down"},
			[]want{{"", 89, HeadToHead}, {"", 89, HeadToHead}, {"", 89, HeadToHead}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := board(t, c.w, c.h, c.food, c.snakes...)
			turn(s, c.answers...)
			for seat, w := range c.want {
				sn := s.Snakes[seat]
				if w.body != "" && !slices.Equal(sn.Body, cells(t, w.body)) {
					t.Errorf("seat %d: body %v, want %s", seat, sn.Body, w.body)
				}
				if w.health >= 0 && sn.Health != w.health {
					t.Errorf("seat %d: health %d, want %d", seat, sn.Health, w.health)
				}
				if sn.Cause != w.cause || (w.cause != "") != (sn.Out == 1) {
					t.Errorf("seat %d: out at turn %d (%q), want %q", seat, sn.Out, sn.Cause, w.cause)
				}
			}
		})
	}
}

// TestPlaces pins the result: the last snake alive first, then by the turn
// of elimination, the same turn by length, equal lengths sharing a place;
// at the turn limit by length, then health.
func TestPlaces(t *testing.T) {
	// Seat 0 dies on turn 1 (wall); seats 1 and 2 meet head to head on
	// turn 2 with lengths 3 and 3 (both out); seat 3 is alone and wins.
	s := board(t, 9, 9, nil,
		"90:8,1 7,1 6,1", "90:2,4 1,4 0,4", "90:6,4 7,4 8,4", "90:4,8 3,8 2,8 1,8")
	turn(s, "right", "right", "left", "right")
	if s.Snakes[0].Cause != Wall || s.Over {
		t.Fatalf("after turn 1: %+v, over %v", s.Snakes[0], s.Over)
	}
	turn(s, "", "right", "left", "right")
	if !s.Over {
		t.Fatal("one snake left and the match is not over")
	}
	if p := s.Placement(); p[0] != 3 || p[3] != 0 {
		t.Fatalf("placement %v: want seat 3 first and seat 0 last", p)
	}
	sc := s.Scores()
	if sc[1] != sc[2] || sc[1] <= sc[0] || sc[3] <= sc[1] {
		t.Fatalf("scores %v: want 1 and 2 level (a shared place), above 0, below 3", sc)
	}
	ranks, _ := rankOf(s)
	if ranks[1] != 1 || ranks[2] != 1 {
		t.Fatalf("ranks %v: seats 1 and 2 share second place", ranks)
	}

	// Eliminated together, the longer places ahead.
	s = board(t, 9, 9, nil, "90:8,1 7,1 6,1 5,1", "90:8,5 7,5 6,5", "90:1,1 1,2 1,3")
	turn(s, "right", "right", "left")
	if sc := s.Scores(); sc[0] <= sc[1] || !s.Over {
		t.Fatalf("scores %v (over %v): the longer of two snakes out on one turn places ahead", sc, s.Over)
	}

	// The turn limit: by length, then health, then shared.
	s = board(t, 9, 9, nil, "50:1,1 1,2 1,3", "60:7,7 7,6 7,5", "40:4,1 4,2 4,3 4,4", "60:7,1 7,2 7,3")
	s.Set.MaxTurns = 1
	turn(s, "left", "right", "right", "right")
	if !s.Over {
		t.Fatal("the turn limit did not end the match")
	}
	if p := s.Placement(); p[0] != 2 || p[3] != 0 {
		t.Fatalf("placement %v: want the longest (seat 2) first, the least healthy of the rest (seat 0) last", p)
	}
	if sc := s.Scores(); sc[1] != sc[3] {
		t.Fatalf("scores %v: seats 1 and 3 are level on length and health", sc)
	}
}

// rankOf is the platform's reading of a result (ties on equal scores).
func rankOf(s *State) ([]int, error) {
	p, sc := s.Placement(), s.Scores()
	ranks := make([]int, len(p))
	for i, seat := range p {
		ranks[seat] = i
		for j := 0; j < i; j++ {
			if sc[p[j]] == sc[seat] {
				ranks[seat] = ranks[p[j]]
				break
			}
		}
	}
	return ranks, nil
}

// TestStart pins the start cells, their order from the seed and the start
// food on the default board.
func TestStart(t *testing.T) {
	want := cells(t, "1,1 9,9 1,9 9,1 5,1 5,9 1,5 9,5")
	if got := StartCells(11, 11); !slices.Equal(got, want) {
		t.Fatalf("start cells %v, want %v", got, want)
	}
	seen := map[Point]int{}
	for seed := uint64(1); seed <= 40; seed++ {
		s := NewState(DefaultSettings(), 4, seed)
		heads := map[Point]bool{}
		for i := range s.Snakes {
			sn := &s.Snakes[i]
			if len(sn.Body) != StartLength || sn.Health != StartHealth || sn.Body[0] != sn.Body[1] || sn.Body[1] != sn.Body[2] {
				t.Fatalf("seed %d seat %d: %+v", seed, i, sn)
			}
			heads[sn.Head()] = true
			if i == 0 {
				seen[sn.Head()]++
			}
		}
		for _, c := range want[:4] {
			if !heads[c] {
				t.Fatalf("seed %d: 4 players not on the four corners' inner points: %v", seed, heads)
			}
		}
		// One piece beside each snake (a diagonal, away from the centre,
		// not a corner), and the centre.
		if len(s.Food) != 5 || s.Food[4] != (Point{5, 5}) {
			t.Fatalf("seed %d: food %v: want 4 pieces then the centre", seed, s.Food)
		}
		for i, f := range s.Food[:4] {
			h := s.Snakes[i].Head()
			if abs(f.X-h.X) != 1 || abs(f.Y-h.Y) != 1 || (f.X == 0 || f.X == 10) && (f.Y == 0 || f.Y == 10) {
				t.Fatalf("seed %d: food %v beside %v", seed, f, h)
			}
			if abs(f.X-5) <= abs(h.X-5) && abs(f.Y-5) <= abs(h.Y-5) {
				t.Fatalf("seed %d: food %v is not farther from the centre than %v on any axis", seed, f, h)
			}
		}
		if again := NewState(DefaultSettings(), 4, seed); again.Hash() != s.Hash() {
			t.Fatalf("seed %d: two starts differ", seed)
		}
	}
	if len(seen) != 4 {
		t.Fatalf("seat 0 started on %v over 40 seeds: the seed should deal every corner", seen)
	}
	// More than four snakes on a board under 11x11: only the centre.
	set := DefaultSettings()
	set.Width, set.Height = 7, 7
	if s := NewState(set, 6, 3); len(s.Food) != 1 || s.Food[0] != (Point{3, 3}) {
		t.Fatalf("6 snakes on 7x7: food %v, want only the centre", s.Food)
	}
}

// TestFood pins food placement: topped up to the minimum, otherwise the
// spawn chance, never on a snake or on food, the same from the same seed.
func TestFood(t *testing.T) {
	s := board(t, 7, 7, nil, "90:3,3 3,2 3,1", "90:5,5 5,4 5,3")
	s.Set.MinimumFood = 3
	turn(s, "up", "up")
	if len(s.Food) != 3 {
		t.Fatalf("food %v: want the minimum of 3", s.Food)
	}
	for i, f := range s.Food {
		if slices.Contains(s.Food[i+1:], f) {
			t.Fatalf("two pieces on %v", f)
		}
		for i := range s.Snakes {
			if slices.Contains(s.Snakes[i].Body, f) {
				t.Fatalf("food %v on snake %d", f, i)
			}
		}
	}
	again := board(t, 7, 7, nil, "90:3,3 3,2 3,1", "90:5,5 5,4 5,3")
	again.Set.MinimumFood = 3
	turn(again, "up", "up")
	if !slices.Equal(again.Food, s.Food) {
		t.Fatalf("the same seed placed %v, then %v", s.Food, again.Food)
	}
	// The chance: 0% never adds, 100% adds one a turn.
	for _, chance := range []int{0, 100} {
		s := board(t, 11, 11, []string{"0,0"}, "90:3,3 3,2 3,1", "90:7,7 7,6 7,5")
		s.Set.MinimumFood, s.Set.FoodSpawnChance = 1, chance
		for range 3 {
			turn(s, "", "")
		}
		if want := 1 + 3*chance/100; len(s.Food) != want {
			t.Fatalf("chance %d%%: %d pieces after 3 turns, want %d", chance, len(s.Food), want)
		}
	}
	// A board with no free cell gets none, and says nothing.
	full := board(t, 7, 7, nil, "90:0,0 0,1", "90:6,6 6,5")
	full.Set.MinimumFood = 100
	turn(full, "right", "left")
	if len(full.Food) != 7*7-4 {
		t.Fatalf("%d pieces on a 7x7 board with 4 snake cells; want every free cell", len(full.Food))
	}
}

// TestTurnLimit: the match ends after max_turns turns with snakes alive.
func TestTurnLimit(t *testing.T) {
	set := DefaultSettings()
	set.MaxTurns = 50
	s := NewState(set, 2, 9)
	for i := 0; !s.Done(); i++ {
		// Both circle in their corners, eating nothing: the limit ends it
		// before health does.
		moves := [][]string{{"up", "right", "down", "left"}}[0]
		turn(s, moves[i%4], moves[i%4])
	}
	if s.TurnNum > 50 {
		t.Fatalf("turn %d past the limit of 50", s.TurnNum)
	}
	alive := 0
	for i := range s.Snakes {
		if s.Snakes[i].Alive() {
			alive++
		}
	}
	if s.TurnNum == 50 && alive != 2 {
		t.Fatalf("ended at the limit with %d alive", alive)
	}
}

// TestAnswers pins the answer parser: moves, shouts, and what is malformed.
func TestAnswers(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes: cut to 256 at a character
	for _, c := range []struct {
		line, want, err string
	}{
		{`{"move":"up"}`, `{"move":"up"}`, ""},
		{` {"move":"left","shout":"hi <b>"} `, `{"move":"left","shout":"hi \u003cb\u003e"}`, ""},
		{`{"move":"down","shout":""}`, `{"move":"down"}`, ""},
		{`{"move":"right","latency":5,"Move":"up"}`, `{"move":"right"}`, ""},
		{`{"move":"right","shout":"` + long + `"}`, `{"move":"right","shout":"` + strings.Repeat("é", 128) + `"}`, ""},
		{`{"move":"Up"}`, "", "is not one of"},
		{`{"move":"north"}`, "", "is not one of"},
		{`{"move":1}`, "", "not a move"},
		{`{"move":null}`, "", "null"},
		{`{"shout":"x"}`, "", `no field "move"`},
		{`{"move":"up","move":"down"}`, "", "twice"},
		{`{"move":"up","shout":7}`, "", "not a move"},
		{`"up"`, "", "not a move"},
		{``, "", "not a move"},
	} {
		a, err := ParseAnswer([]byte(c.line))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one saying %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if got := string(AppendAnswer(nil, a)); got != c.want {
			t.Errorf("%s: canonical %s, want %s", c.line, got, c.want)
		}
	}
}

// TestShoutShownNextTurn: what a snake says is in every observation of
// the next turn, and gone the turn after unless said again.
func TestShoutShownNextTurn(t *testing.T) {
	s := NewState(DefaultSettings(), 2, 4)
	turn(s, `{"move":"up","shout":"hello"}`, "up")
	for seat := range 2 {
		o := s.Observe(seat)
		if o.Board.Snakes[0].Shout != "hello" || o.Board.Snakes[1].Shout != "" {
			t.Fatalf("seat %d sees shouts %q, %q", seat, o.Board.Snakes[0].Shout, o.Board.Snakes[1].Shout)
		}
	}
	turn(s, "up", "up")
	if o := s.Observe(1); o.Board.Snakes[0].Shout != "" {
		t.Fatalf("the shout stayed: %q", o.Board.Snakes[0].Shout)
	}
}

// TestObservationFormat pins the observation against Battlesnake's /move
// body, field for field, on a fixed position.
func TestObservationFormat(t *testing.T) {
	s := board(t, 7, 7, []string{"3,3"}, "90:1,1 1,2 1,2", "80:5,5 5,4 5,3 5,2")
	s.Seed = 42
	s.TurnNum = 12
	s.Snakes[1].Shout = "hi"
	got := string(s.AppendObservation(nil, 1))
	want := `{"game":{"id":"42","ruleset":{"name":"standard","version":"arena","settings":{"foodSpawnChance":0,"minimumFood":0,"hazardDamagePerTurn":0}},"map":"standard","timeout":0,"source":"arena"},` +
		`"turn":12,"board":{"height":7,"width":7,"food":[{"x":3,"y":3}],"hazards":[],"snakes":[` +
		`{"id":"seat-0","name":"seat-0","health":90,"body":[{"x":1,"y":1},{"x":1,"y":2},{"x":1,"y":2}],"head":{"x":1,"y":1},"length":3,"latency":"0","shout":"","customizations":{"color":"#e6194b","head":"default","tail":"default"}},` +
		`{"id":"seat-1","name":"seat-1","health":80,"body":[{"x":5,"y":5},{"x":5,"y":4},{"x":5,"y":3},{"x":5,"y":2}],"head":{"x":5,"y":5},"length":4,"latency":"0","shout":"hi","customizations":{"color":"#4363d8","head":"default","tail":"default"}}]},` +
		`"you":{"id":"seat-1","name":"seat-1","health":80,"body":[{"x":5,"y":5},{"x":5,"y":4},{"x":5,"y":3},{"x":5,"y":2}],"head":{"x":5,"y":5},"length":4,"latency":"0","shout":"hi","customizations":{"color":"#4363d8","head":"default","tail":"default"}}}`
	if got != want {
		t.Fatalf("observation\n%s\nwant\n%s", got, want)
	}
	// An eliminated snake is left out and not asked.
	s.Snakes[0].Out = 3
	s.refreshAsked()
	if o := s.Observe(1); len(o.Board.Snakes) != 1 || o.Board.Snakes[0].ID != "seat-1" {
		t.Fatalf("an eliminated snake is still on the board: %+v", o.Board.Snakes)
	}
	if a := s.Asked(); !slices.Equal(a, []int{1}) {
		t.Fatalf("asked %v, want only seat 1", a)
	}
}

// FuzzParseAnswer: no line crashes the parser, and what it accepts has a
// canonical form that parses back to the same answer.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{"move":"up"}`, `{"move":"left","shout":"x"}`, `{}`, `null`, `{"move":"up","shout":"` + strings.Repeat("\u00e9", 200) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		a, err := ParseAnswer(line)
		if err != nil {
			return
		}
		canon := AppendAnswer(nil, a)
		b, err := ParseAnswer(canon)
		if err != nil || b != a {
			t.Fatalf("%q: canonical %s parses to %+v, %v", line, canon, b, err)
		}
		if len(a.Shout) > MaxShout {
			t.Fatalf("a shout of %d bytes was kept", len(a.Shout))
		}
	})
}
