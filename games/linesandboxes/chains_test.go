package linesandboxes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
)

// positionOf is the search's position for a drawn-edge set of x's board.
func positionOf(x *exactSolver, drawn edgeSet) position {
	p := position{g: x.g, left: x.g.n}
	for e := 0; e < x.g.n; e++ {
		if drawn.has(e) {
			p.drawEdge(e)
		}
	}
	return p
}

// TestChainValueHandBuilt checks chainCounts and chainValue on 3x3
// positions past the safe phase (every edge drawn but the listed ones),
// and that chainValue agrees there with the exact solver, which knows
// nothing of chains.
func TestChainValueHandBuilt(t *testing.T) {
	// A1: top and left open, a chain of one box from the border to the
	// border. A3: left and bottom, another. C3 and C2: a chain of two
	// (C3's bottom, the C2-C3 side, C2's right).
	one, other := []string{"A1-B1", "A1-A2"}, []string{"A3-A4", "A4-B4"}
	two := []string{"C4-D4", "C3-D3", "D2-D3"}
	quad := []string{"B1-B3", "A2-C2"}
	cat := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			out = append(out, l...)
		}
		return out
	}
	for _, c := range []struct {
		name             string
		open             []string
		odd, even, loops int
		value            int
	}{
		{"one odd chain: the mover gives it", one, 1, 0, 0, -1},
		{"one even chain: shared", two, 0, 1, 0, 0},
		{"two odd chains: the mover gives both", cat(one, other), 2, 0, 0, -2},
		{"odd and even: open the even one, the other gives the odd", cat(one, two), 1, 1, 0, 1},
		{"two odd and one even", cat(one, other, two), 2, 1, 0, 2},
		// A1, B1, A2 and B2 around dot B2: a loop of four. Its open sides
		// pair up on two lines through B2, yet the rule holds: -2.
		{"a loop: the mover gives it", quad, 0, 0, 1, -2},
		{"a loop and an odd chain", cat(quad, other), 1, 0, 1, -3},
		{"a loop and an even chain: open the chain", cat(quad, two), 0, 1, 1, 2},
	} {
		x, drawn := allDrawnBut(t, c.open...)
		p := positionOf(x, drawn)
		if p.hasSafe() || p.three != 0 {
			t.Fatalf("%s: not past the safe phase", c.name)
		}
		odd, even, loops := p.chainCounts()
		if odd != c.odd || even != c.even || loops != c.loops {
			t.Errorf("%s: %d odd, %d even, %d loops; want %d, %d, %d", c.name, odd, even, loops, c.odd, c.even, c.loops)
		}
		if got := p.chainValue(); got != c.value {
			t.Errorf("%s: chainValue %d, want %d", c.name, got, c.value)
		}
		if got := x.value(drawn); got != c.value {
			t.Errorf("%s: the exact solver says %d, want %d", c.name, got, c.value)
		}
	}
}

// TestChainValueAgreesWithExact collects the positions where the safe phase
// has just ended in greedy games on small boards with random pre-drawn
// lines, and compares the chain rule with the exact solver there. Where
// chainStructure trusts the rule (no junction, no chain with two open sides
// next to each other on one line) it must give the exact value every time.
// Elsewhere it is often wrong, which is why the strong bot uses it only where
// it is trusted; the log says how often, next to the greedy playout's score.
func TestChainValueAgreesWithExact(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 12
	}
	judged, agreed, playoutAgreed, clean := 0, 0, 0, 0
	for i := 0; i < seeds; i++ {
		seed := uint64(900 + i)
		s, err := NewState(seed, game.Params{"rows": "3", "cols": fmt.Sprint(3 + i%2), "predrawn": "-1"})
		if err != nil {
			t.Fatal(err)
		}
		x := newExactSolver(s.g)
		greedy := [2]game.HouseBot{houseBot(t, "greedy", seed, 0), houseBot(t, "greedy", seed+1, 1)}
		for !s.Done() {
			p := s.position()
			if p.three == 0 && !p.hasSafe() {
				want, got := x.value(s.drawn), p.chainValue()
				judged++
				if pv, _ := p.playout(false); pv == want {
					playoutAgreed++
				}
				if got == want {
					agreed++
				}
				if _, _, _, ok := p.chainStructure(); ok {
					clean++
					if got != want {
						var sb strings.Builder
						s.Render(&sb, false)
						t.Errorf("seed %d, %d edges left: the rule is trusted and says %d, the exact value is %d\n%s", seed, s.left, got, want, sb.String())
					}
				}
			}
			seat := s.ToMove()
			s.Apply(answersFor(seat, greedy[seat].Act(s, seat)))
		}
	}
	t.Logf("%d positions past the safe phase: the rule trusted on %d; it gave the exact value on %d in all, the greedy playout on %d", judged, clean, agreed, playoutAgreed)
	if judged < seeds || clean == 0 {
		t.Fatalf("%d positions judged, %d trusted: too few to check anything", judged, clean)
	}
}

// TestLoonyEdgeKeepsTheRulesValue: on hand-built 3x3 positions past the
// safe phase, the loony playout's opening line must keep the exact value:
// with an odd number of even chains it has to open an even one, and with
// none it may open anything.
func TestLoonyEdgeKeepsTheRulesValue(t *testing.T) {
	one, other := []string{"A1-B1", "A1-A2"}, []string{"A3-A4", "A4-B4"}
	two := []string{"C4-D4", "C3-D3", "D2-D3"}
	quad := []string{"B1-B3", "A2-C2"}
	for _, c := range []struct {
		name string
		open []string
	}{
		{"one odd chain", one},
		{"odd and even: open the even one", append(append([]string(nil), one...), two...)},
		{"two odd and one even: open the even one", append(append(append([]string(nil), one...), other...), two...)},
		{"a loop and an even chain: open the chain", append(append([]string(nil), quad...), two...)},
		{"a loop and an odd chain", append(append([]string(nil), quad...), other...)},
	} {
		x, drawn := allDrawnBut(t, c.open...)
		p := positionOf(x, drawn)
		e, _ := p.loonyEdge()
		if e < 0 {
			t.Fatalf("%s: no edge", c.name)
		}
		after := drawn
		after.add(e)
		if got, want := -x.value(after), x.value(drawn); got != want {
			t.Errorf("%s: opening %v is worth %d, the position %d", c.name, p.g.edgeSegment(e), got, want)
		}
	}
}
