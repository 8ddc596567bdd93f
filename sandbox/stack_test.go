package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/arenabots/arena/protocol"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// recursionModule is the echo module whose Turn calls a function of its own
// that calls itself depth - 1 times before the echo module answers.
func recursionModule(depth int32) []byte {
	const rec = TurnFunc + 1
	m := Echo{Turn: Cat(I32(depth), Call(rec))}.Module()
	m = ExtendVec(m, 1, 1, []byte{0x60, 1, i32t, 0})
	m = ExtendVec(m, 3, 1, []byte{4})
	body := Cat([]byte{0}, Get(0), If, Get(0), I32(1), I32Sub, Call(rec), End, End)
	return ExtendVec(m, 10, 1, Cat(ULEB(uint64(len(body))), body))
}

// The meter's stack estimate (meter.FrameBytes) is loose, as it must hold
// for any code, but not so loose that ordinary recursion fails: a function
// of one parameter is counted at a few hundred bytes a frame, so 10,000
// frames answer and 100,000 (over the 16 MiB bound) crash.
func TestRecursionDepth(t *testing.T) {
	for _, tc := range []struct {
		depth int32
		want  protocol.Status
	}{{10_000, protocol.OK}, {100_000, protocol.Crash}} {
		in, err := testRT.Start(context.Background(), compileBytes(t, recursionModule(tc.depth)), Config{Tank: &Tank{PerTurn: 20_000_000, Cap: 20_000_000}, Limits: Limits{CPU: time.Minute, Wall: time.Minute}})
		if err != nil {
			t.Fatal(err)
		}
		r := in.Ask(context.Background(), obsWithFuel(`{}`))
		in.Stop()
		if r.Status != tc.want {
			t.Errorf("depth %d: %s (%s), want %s", tc.depth, r.Status, r.Detail, tc.want)
		}
	}
}
