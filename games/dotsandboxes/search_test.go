package dotsandboxes

import (
	"math/bits"

	"github.com/arenabots/arena/internal/rng"
	"testing"
)

func TestSearchVsChainsQuick(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	rate := winRate(t, "search", "chains", 20)
	t.Logf("search beats chains in %.0f%% of 20", 100*rate)
}

// TestShapeMatchesComponents checks the allocation-free chain analysis and
// its loony values against components and loony (chains.go) on random
// positions with no safe edge and no capture pending.
func TestShapeMatchesComponents(t *testing.T) {
	src := rng.New(11)
	checked := 0
	for game := 0; game < 300; game++ {
		var b Board
		for !b.Over() {
			closing, safe, unsafe := b.classify()
			if closing == 0 && safe == 0 {
				sh, n := shapeOf(&b)
				comps := components(&b)
				if n != len(comps) {
					t.Fatalf("%x: %d components, shape has %d", b.Drawn, len(comps), n)
				}
				want := newLoony().value(comps)
				if got := (loonyTable{}).value(sh, n); got != want {
					t.Fatalf("%x: loony value %d, shape value %d", b.Drawn, want, got)
				}
				checked++
			}
			m := closing
			if m == 0 {
				m = safe
			}
			if m == 0 {
				m = unsafe
			}
			b.Play(nthBit(m, src.Intn(bits.OnesCount64(m))))
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d positions checked", checked)
	}
}
