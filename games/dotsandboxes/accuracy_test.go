package dotsandboxes

import (
	"math/bits"
	"os"
	"strconv"
	"testing"

	solver "github.com/arenabots/arena/games/dotsandboxes/exact"
	"github.com/arenabots/arena/internal/rng"
)

// latePositions plays games with random tie-breaks until free edges are
// left, and keeps the position if some moves there are worse than others:
// the positions where a move can be wrong. Captures come first, then safe
// edges, then the rest; with sacrifices, a player with no capture sometimes
// (one time in six) draws an unsafe edge although safe ones are left, which
// hands boxes over early and leaves safe edges on the board late, and only
// positions that still have a safe edge are kept.
func latePositions(s *solver.Solver, free, n int, sacrifices bool, seed uint64) []Board {
	src := rng.New(seed)
	var out []Board
	for len(out) < n {
		var b Board
		for bits.OnesCount64(b.Undrawn()) > free {
			closing, safe, unsafe := b.classify()
			m := closing
			if m == 0 {
				m = safe
				if sacrifices && unsafe != 0 && src.Intn(6) == 0 {
					m = unsafe
				}
			}
			if m == 0 {
				m = unsafe
			}
			b.Play(nthBit(m, src.Intn(bits.OnesCount64(m))))
		}
		if _, safe, _ := b.classify(); sacrifices && safe == 0 {
			continue
		}
		s.Focus(b.Drawn)
		v := s.Value(b.Drawn)
		for m := b.Undrawn(); m != 0; m &= m - 1 {
			if s.Move(b.Drawn, bits.TrailingZeros64(m)) != v {
				out = append(out, b)
				break
			}
		}
	}
	s.Forget()
	return out
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestSearchAccuracy checks the search bot's moves against the brute-force
// solver (package exact) on late positions of two kinds: loony endgames with
// no safe edge left, and positions where the fight for the last safe edge
// is still on. The move must keep the exact value in at least 99% of each.
// STRENGTH_FREE, STRENGTH_SAFE_FREE and STRENGTH_POSITIONS make the sets
// larger for docs/bots-strength.md (scripts/strength.sh).
func TestSearchAccuracy(t *testing.T) {
	n := envInt("STRENGTH_POSITIONS", 40)
	for _, set := range []struct {
		name       string
		free       int
		sacrifices bool
	}{
		{"loony", envInt("STRENGTH_FREE", 15), false},
		{"safe", envInt("STRENGTH_SAFE_FREE", 16), true},
	} {
		s, err := solver.New(Rows, Cols)
		if err != nil {
			t.Fatal(err)
		}
		positions := latePositions(s, set.free, n, set.sacrifices, 3)
		kept, withSafe := 0, 0
		for i, b := range positions {
			if _, safe, _ := b.classify(); safe != 0 {
				withSafe++
			}
			e := newSearcher(levelHard).bestMove(&b)
			if b.Undrawn()&(1<<uint(e)) == 0 {
				t.Fatalf("%s position %d: illegal move %v", set.name, i, e)
			}
			s.Focus(b.Drawn)
			if s.Move(b.Drawn, int(e)) == s.Value(b.Drawn) {
				kept++
			} else {
				t.Logf("%s position %x: %v worth %d, best %d", set.name, b.Drawn, e, s.Move(b.Drawn, int(e)), s.Value(b.Drawn))
			}
		}
		s.Forget()
		rate := float64(kept) / float64(len(positions))
		t.Logf("ACCURACY set=%s free=%d positions=%d with_safe_edges=%d kept=%d rate=%.4f", set.name, set.free, len(positions), withSafe, kept, rate)
		if rate < 0.99 {
			t.Errorf("%s: the search keeps the exact value in %d of %d positions, want 99%%", set.name, kept, len(positions))
		}
	}
}
