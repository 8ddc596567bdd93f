package sandbox

import (
	"context"
	"fmt"
	"testing"

	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// firstAnswer starts mod with a tank of size, asks it once and stops it.
func firstAnswer(t *testing.T, mod *Module, size int64) protocol.Reply {
	t.Helper()
	ctx := context.Background()
	in, err := testRT.Start(ctx, mod, Config{Seed: 1, Tank: &Tank{PerTurn: size, Cap: size}})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Stop()
	return in.Ask(ctx, obsWithFuel(`{"cmd":"echo"}`))
}

// A turn that runs dry records what it really spent, never more than its
// tank: an endless loop of one unit per iteration is stopped at the loop
// header that would leave less than the reserve, so it has spent exactly
// its tank less the reserve, whatever the tank.
func TestDryTurnRecordsExactFuel(t *testing.T) {
	mod := compileBytes(t, Echo{Turn: Forever()}.Module())
	for _, size := range []int64{meter.Reserve + 500, 12_345, 5_000_000, 20_000_000} {
		r := firstAnswer(t, mod, size)
		if r.Status != protocol.Fuel || r.Fuel != size-meter.Reserve {
			t.Errorf("tank %d: %s with fuel %d, want fuel with %d", size, r.Status, r.Fuel, size-meter.Reserve)
		}
	}
}

// An answer is ok exactly when the tank carries the turn's code, its cost
// then being the same whatever the tank; below that the turn is fuel,
// having spent no more than its tank and stopped only when the tank could
// not carry it to its next check.
func TestAnswerOKOnlyWhenItFits(t *testing.T) {
	// countdown(n) in the turn: 5 units an iteration, then the answer.
	const n = 2000
	mod := compileBytes(t, Echo{TurnLocals: 1, Turn: Cat(I32(n), Set(0),
		Loop, Get(0), I32(1), I32Sub, Tee(0), BrIf(0), End)}.Module())
	// Every tank here has five digits: the observation, which tells the
	// tank, is then always as long, and so costs as much to read.
	cost := firstAnswer(t, mod, 99_999)
	if cost.Status != protocol.OK {
		t.Fatalf("with a tank of 99,999: %+v", cost)
	}
	if cost.Fuel < 5*n || cost.Fuel > 20_000 {
		t.Fatalf("the turn cost %d, less than its loop", cost.Fuel)
	}
	// The smallest tank the answer is ok with, by bisection: ok at hi,
	// fuel at lo.
	lo, hi := int64(10_000), cost.Fuel+10*meter.Reserve
	if r := firstAnswer(t, mod, hi); r.Status != protocol.OK {
		t.Fatalf("tank %d: %s", hi, r.Status)
	}
	if r := firstAnswer(t, mod, lo); r.Status != protocol.Fuel {
		t.Fatalf("tank %d: %s", lo, r.Status)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if firstAnswer(t, mod, mid).Status == protocol.OK {
			hi = mid
		} else {
			lo = mid
		}
	}
	// The host call writing the answer is the dearest step the turn ends
	// with: it may need that much above the reserve.
	step := int64(meter.HostCallPrice + 2*meter.HostIovecPrice + 8)
	if margin := hi - cost.Fuel; margin < 0 || margin > meter.Reserve+step {
		t.Errorf("the answer needs a tank of %d for a cost of %d: %d more, want 0 to %d", hi, cost.Fuel, margin, meter.Reserve+step)
	}
	for size := hi - 40; size <= hi+40; size++ {
		r := firstAnswer(t, mod, size)
		switch {
		case size >= hi && (r.Status != protocol.OK || r.Fuel != cost.Fuel):
			t.Errorf("tank %d: %s with fuel %d, want ok with %d", size, r.Status, r.Fuel, cost.Fuel)
		case size < hi && r.Status != protocol.Fuel:
			t.Errorf("tank %d: %s, want fuel", size, r.Status)
		case size < hi && (r.Fuel > size || r.Fuel > cost.Fuel || size-r.Fuel > meter.Reserve+step):
			t.Errorf("tank %d: dry after %d fuel, want at most the tank and the turn's cost, and stopped only within %d of the end", size, r.Fuel, meter.Reserve+step)
		}
	}
	t.Logf("the turn costs %d and is ok from a tank of %s", cost.Fuel, fmt.Sprint(hi))
}

// Cost model 4: a dry turn in a large memory stops at the loop header that
// cannot pay its iteration and the reserve at the memory's price (Reserve
// units of code, every one of which may be an access): never overdrawn,
// never stopped earlier. The memory is large from the start, or grows
// into a dearer tier just before the loop.
func TestDryTurnInLargeMemory(t *testing.T) {
	load := []byte{0x28, 2, 0}
	for _, tc := range []struct {
		name        string
		pages, grow int32
	}{
		{"128 KiB", 2, 0}, {"1 MiB", 16, 0}, {"2 MiB", 32, 0}, {"4 MiB", 64, 0}, {"64 MiB", 1024, 0}, {"200 MiB", 3200, 0},
		{"grown from 125 MiB to 131 MiB", 2000, 100}, {"grown from 1 MiB to 3 MiB", 16, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn := Forever(I32(64), load, Drop) // 4 units and one access an iteration
			if tc.grow > 0 {
				turn = Cat(I32(tc.grow), MemoryGrow, Drop, turn)
			}
			mod := compileBytes(t, Echo{MinPages: int(tc.pages), Turn: turn}.Module())
			p := meter.AccessPrice(uint64(tc.pages+tc.grow), false)
			r, c := meter.Reserve*(1+p), 4+p
			for _, size := range []int64{5_000_000, 5_000_000 + 77} {
				got := firstAnswer(t, mod, size)
				if left := size - got.Fuel; got.Status != protocol.Fuel || left < r || left >= r+c {
					t.Errorf("tank %d: %s with fuel %d, leaving %d; want fuel, leaving %d to %d", size, got.Status, got.Fuel, left, r, r+c-1)
				}
			}
		})
	}
}
