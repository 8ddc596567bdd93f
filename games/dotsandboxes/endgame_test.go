package dotsandboxes

import (
	"math/bits"
	"testing"

	"github.com/arenabots/arena/internal/rng"
)

// exact is plain minimax over every free edge, memoised on the drawn edges:
// the reference the endgame solver's shortcuts must agree with.
func exact(b *Board, memo map[uint64]int) int {
	if b.Over() {
		return 0
	}
	if v, ok := memo[b.Drawn]; ok {
		return v
	}
	best, first := 0, true
	for free := b.Undrawn(); free != 0; free &= free - 1 {
		after := *b
		v := 0
		if n := after.Play(Edge(bits.TrailingZeros64(free))); n > 0 {
			v = n + exact(&after, memo)
		} else {
			v = -exact(&after, memo)
		}
		if first || v > best {
			best, first = v, false
		}
	}
	memo[b.Drawn] = best
	return best
}

// TestEndgameSolverIsExact plays random games until no safe edge is left
// and few edges remain, then compares the solver with full minimax.
func TestEndgameSolverIsExact(t *testing.T) {
	src := rng.New(5)
	checked := 0
	for game := 0; checked < 300 && game < 5000; game++ {
		var b Board
		for !b.Over() {
			_, safe, _ := b.classify()
			if safe == 0 && bits.OnesCount64(b.Undrawn()) <= 16 {
				break
			}
			free := b.Undrawn()
			b.Play(nthBit(free, src.Intn(bits.OnesCount64(free))))
		}
		if b.Over() {
			continue
		}
		got, ok := newEndgame().value(&b)
		if !ok {
			t.Fatalf("game %d: over budget with %d free edges", game, bits.OnesCount64(b.Undrawn()))
		}
		if want := exact(&b, map[uint64]int{}); got != want {
			t.Fatalf("game %d: solver says %d, minimax %d, for drawn=%#x", game, got, want, b.Drawn)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d endgames checked", checked)
	}
}
