package sandbox

import (
	"context"
	"testing"

	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// The virtual clocks saturate instead of wrapping, so they never go back.
func TestClocksSaturate(t *testing.T) {
	in := &Instance{}
	last := in.nanotime()
	for _, ns := range []int64{1, 1 << 62, 1 << 62, 1<<63 - 1, 1<<63 - 1, -5, 0} {
		in.nanosleep(ns)
		now := in.nanotime()
		if now < last || now > maxClock {
			t.Fatalf("after sleeping %d: clock %d, was %d (max %d)", ns, now, last, maxClock)
		}
		sec, nsec := in.walltime()
		if sec < clockEpoch || nsec < 0 || sec*1_000_000_000+int64(nsec) < 0 {
			t.Fatalf("wall clock %d.%09d wrapped", sec, nsec)
		}
		last = now
	}
	if last != maxClock {
		t.Errorf("clock %d, want it stopped at %d", last, maxClock)
	}
}

// A tank belongs to the instance started on it last: an older instance of
// the same tank can no longer write it.
func TestTankHasOneOwner(t *testing.T) {
	mod := compileBytes(t, wasmtest.Echo{}.Module())
	tank := &Tank{Left: 1_000_000, Cap: 1_000_000}
	a, err := testRT.Start(context.Background(), mod, Config{Tank: tank})
	if err != nil {
		t.Fatal(err)
	}
	if r := a.Ask(context.Background(), obsWithFuel(`{}`)); r.Status != protocol.OK {
		t.Fatalf("reply %+v", r)
	}
	left := tank.Fuel()
	b, err := testRT.Start(context.Background(), mod, Config{Tank: tank})
	if err != nil {
		t.Fatal(err)
	}
	// a is no longer the owner: its next turn cannot take fuel from the tank.
	if r := a.Ask(context.Background(), obsWithFuel(`{}`)); r.Status == protocol.OK {
		t.Errorf("the old instance answered %+v", r)
	}
	a.Stop()
	if got := tank.Fuel(); got != left {
		t.Errorf("the old instance changed the tank: %d, was %d", got, left)
	}
	if r := b.Ask(context.Background(), obsWithFuel(`{}`)); r.Status != protocol.OK || tank.Fuel() >= left {
		t.Errorf("the new instance: %+v, tank %d (was %d)", r, tank.Fuel(), left)
	}
	b.Stop()
}
