package snake

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// referenceTurn is one line of testdata/reference-turns.jsonl.gz: a position,
// every snake's move ("" for no valid answer) and the position after the
// turn as Battlesnake's reference rules engine (BattlesnakeOfficial/rules,
// its standard ruleset's movement, starvation, feeding and elimination
// stages, no food placement) resolved it. The table was generated with that
// engine outside the repository, from random positions of 2 to 8 snakes on
// 7x7 to 11x11 boards played for up to six turns.
type referenceTurn struct {
	W, H   int
	Food   [][2]int
	Snakes []referenceSnake
	Moves  []string
	Next   struct {
		Food   [][2]int
		Snakes []referenceSnake
	}
}

type referenceSnake struct {
	Body   [][2]int
	Health int
	Out    bool
	Cause  string
}

func points(ps [][2]int) []Point {
	out := make([]Point, len(ps))
	for i, p := range ps {
		out[i] = Point{p[0], p[1]}
	}
	return out
}

// TestAgreesWithReferenceEngine resolves every turn of the reference table
// with Advance and compares the whole position: bodies, health, who is
// out and why, and the food left.
func TestAgreesWithReferenceEngine(t *testing.T) {
	f, err := os.Open("testdata/reference-turns.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		var rt referenceTurn
		if err := json.Unmarshal(sc.Bytes(), &rt); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		s := &State{Set: DefaultSettings(), N: len(rt.Snakes), TurnNum: 0}
		s.Set.Width, s.Set.Height = rt.W, rt.H
		s.Food = points(rt.Food)
		moves := make([]Dir, len(rt.Snakes))
		for i, rs := range rt.Snakes {
			s.Snakes = append(s.Snakes, Snake{Body: points(rs.Body), Health: rs.Health})
			if rs.Out {
				s.Snakes[i].Out, s.Snakes[i].Cause = -1, "before"
			}
			a, err := ParseAnswer([]byte(`{"move":"` + rt.Moves[i] + `"}`))
			if err != nil {
				a.Move = s.Snakes[i].DefaultMove()
			}
			moves[i] = a.Move
		}
		s.Advance(moves, nil)
		if got, want := s.Food, points(rt.Next.Food); !slices.Equal(got, want) {
			t.Errorf("line %d: food %v, reference %v", n, got, want)
		}
		for i, want := range rt.Next.Snakes {
			got := s.Snakes[i]
			cause := got.Cause
			if got.Out == -1 { // out before this turn: the reference keeps its old cause
				cause = want.Cause
			}
			if !slices.Equal(got.Body, points(want.Body)) || got.Health != want.Health || got.Alive() != !want.Out || cause != want.Cause {
				t.Errorf("line %d seat %d: body %v health %d cause %q; reference body %v health %d out %v cause %q",
					n, i, got.Body, got.Health, cause, points(want.Body), want.Health, want.Out, want.Cause)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("%d turns in the table; want at least 1,000", n)
	}
}
