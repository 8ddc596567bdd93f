package dotsandboxes

import (
	"math/bits"
	"os"
	"strconv"
	"testing"

	solver "github.com/arenabots/arena/games/dotsandboxes/exact"
	"github.com/arenabots/arena/internal/rng"
)

// latePositions plays greedy games with random tie-breaks (captures first,
// then safe edges, then the rest) and keeps the position when free edges are
// left, if some moves there are worse than others: the positions where a
// move can be wrong.
func latePositions(s *solver.Solver, free, n int, seed uint64) []Board {
	src := rng.New(seed)
	var out []Board
	for len(out) < n {
		var b Board
		for bits.OnesCount64(b.Undrawn()) > free {
			closing, safe, unsafe := b.classify()
			m := closing
			if m == 0 {
				m = safe
			}
			if m == 0 {
				m = unsafe
			}
			b.Play(nthBit(m, src.Intn(bits.OnesCount64(m))))
		}
		v := s.Value(b.Drawn)
		for m := b.Undrawn(); m != 0; m &= m - 1 {
			if s.Move(b.Drawn, bits.TrailingZeros64(m)) != v {
				out = append(out, b)
				break
			}
		}
		s.Forget()
	}
	return out
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestSearchAccuracy checks the search bot's moves against the brute-force
// solver (package exact) on late positions: the move must keep the exact
// value in at least 99% of them. STRENGTH_FREE and STRENGTH_POSITIONS make
// the set larger for docs/bots-strength.md (scripts/strength.sh).
func TestSearchAccuracy(t *testing.T) {
	free := envInt("STRENGTH_FREE", 15)
	n := envInt("STRENGTH_POSITIONS", 60)
	s, err := solver.New(Rows, Cols)
	if err != nil {
		t.Fatal(err)
	}
	positions := latePositions(s, free, n, 3)
	kept, withSafe := 0, 0
	for i, b := range positions {
		if _, safe, _ := b.classify(); safe != 0 {
			withSafe++
		}
		e := newSearcher(levelHard).bestMove(&b)
		if b.Undrawn()&(1<<uint(e)) == 0 {
			t.Fatalf("position %d: illegal move %v", i, e)
		}
		if s.Move(b.Drawn, int(e)) == s.Value(b.Drawn) {
			kept++
		} else {
			t.Logf("position %x: %v worth %d, best %d", b.Drawn, e, s.Move(b.Drawn, int(e)), s.Value(b.Drawn))
		}
		s.Forget()
	}
	rate := float64(kept) / float64(len(positions))
	t.Logf("ACCURACY free=%d positions=%d with_safe_edges=%d kept=%d rate=%.4f", free, len(positions), withSafe, kept, rate)
	if rate < 0.99 {
		t.Errorf("the search keeps the exact value in %d of %d positions, want 99%%", kept, len(positions))
	}
}
