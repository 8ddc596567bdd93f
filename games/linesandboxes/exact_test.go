package linesandboxes

import "testing"

// exactSolver values Lines and Boxes positions by plain minimax over every
// legal line, memoised on the set of drawn edges. It shares nothing with the
// search bot but the board's geometry: its own move generator, its own box
// counting, no pruning and no evaluation, so it can judge the bot's moves.
// It is slow and only for positions with few undrawn edges (about 22 at most).
type exactSolver struct {
	g    *geom
	memo map[edgeSet]int8
}

func newExactSolver(g *geom) *exactSolver {
	return &exactSolver{g: g, memo: make(map[edgeSet]int8)}
}

// sides counts the drawn sides of box b.
func (x *exactSolver) sides(drawn *edgeSet, b int) int {
	n := 0
	for _, e := range x.g.boxEdges[b] {
		if drawn.has(e) {
			n++
		}
	}
	return n
}

// value is the net number of boxes the player to move gets from here on,
// with best play on both sides.
func (x *exactSolver) value(drawn edgeSet) int {
	if v, ok := x.memo[drawn]; ok {
		return int(v)
	}
	best, any := -1<<20, false
	for li := range x.g.lines {
		edges := x.g.lines[li].edges
		for a := range edges {
			child := drawn
			gain := 0
			for b := a; b < len(edges) && !drawn.has(edges[b]); b++ {
				e := edges[b]
				child.add(e)
				for _, box := range x.g.edgeBoxes[e] {
					if box >= 0 && x.sides(&child, box) == 4 {
						gain++
					}
				}
				any = true
				if v := gain - x.value(child); v > best {
					best = v
				}
			}
		}
	}
	if !any {
		best = 0
	}
	x.memo[drawn] = int8(best)
	return best
}

// undrawn counts the edges left to draw.
func (x *exactSolver) undrawn(drawn edgeSet) int {
	n := 0
	for e := 0; e < x.g.n; e++ {
		if !drawn.has(e) {
			n++
		}
	}
	return n
}

// allDrawnBut is a 3x3 position with every edge drawn except the given
// segments' edges ("A1-C1" etc.).
func allDrawnBut(t *testing.T, segs ...string) (*exactSolver, edgeSet) {
	t.Helper()
	g := geoms[3][3]
	drawn := g.valid
	for _, s := range segs {
		list, err := ParseSegments(s)
		if err != nil {
			t.Fatal(err)
		}
		edges, err := g.segmentEdges(list[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range edges {
			drawn[e>>6] &^= 1 << (e & 63)
		}
	}
	return newExactSolver(g), drawn
}

// TestExactSolverHandBuilt checks the solver on endings worked out by hand.
func TestExactSolverHandBuilt(t *testing.T) {
	for _, c := range []struct {
		name  string
		open  []string
		value int
	}{
		{"the last side of a box is the mover's", []string{"A1-B1"}, 1},
		// Two sides of A1 on different lines: whoever draws one gives
		// the box away, as turns alternate.
		{"two sides on two lines give the box away", []string{"A1-B1", "A1-A2"}, -1},
		// The tops of A1 and B1 lie on one line: one line takes both.
		{"one line takes a row of boxes", []string{"A1-C1"}, 2},
		{"one line takes the whole top row", []string{"A1-D1"}, 3},
		// A1's top and C1's right side: each move takes one box, one each.
		{"one box each", []string{"A1-B1", "D1-D2"}, 0},
		// C1-C2 is the last side of both B1 and C1; A1's top is left.
		{"one edge closes two boxes", []string{"A1-B1", "C1-C2"}, 1},
		// Box A1 needs its top and left, B1 its top. Drawing A1-C1 takes
		// B1 and hands A1 over (0); drawing B1-C1 takes B1 alone and
		// leaves A1 two sides short on two lines, so the other player
		// must give it back (+2): taking less than the line could is best.
		{"take less to keep the tempo", []string{"A1-C1", "A1-A2"}, 2},
	} {
		x, drawn := allDrawnBut(t, c.open...)
		if got := x.value(drawn); got != c.value {
			t.Errorf("%s: value %d, want %d", c.name, got, c.value)
		}
	}
}
