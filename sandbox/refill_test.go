package sandbox

import (
	"context"
	"testing"

	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// The refill rule (docs/sandbox.md, "The tank"): the tank is filled when
// the bot's read of stdin delivers the next observation, and until then
// the bot runs on what its answer left. Every check of its code and the
// return from every host call (its answer's write included) needs the
// reserve in the tank, so a bot that answers with less than the reserve,
// plus what its code costs up to its next read, cannot get to the read
// that would fill its tank: it ends there, dry, its answer standing, and
// the next question is answered fuel with 0 spent. Here the echo module
// (whose reserve is meter.Reserve: a small memory, few functions) answers
// leaving exactly x units, for every x around the threshold.
func TestRefillNeedsTheReserveAfterTheAnswer(t *testing.T) {
	mod := compileBytes(t, Echo{}.Module())
	// turns answers two questions on a tank of perTurn (and cap perTurn).
	turns := func(perTurn int64) (first, second protocol.Reply) {
		in, err := testRT.Start(context.Background(), mod, Config{Tank: &Tank{PerTurn: perTurn, Cap: perTurn}})
		if err != nil {
			t.Fatal(err)
		}
		defer in.Stop()
		first = in.Ask(context.Background(), obsWithFuel(`{}`))
		second = in.Ask(context.Background(), obsWithFuel(`{}`))
		return first, second
	}
	big, _ := turns(1_000_000)
	if big.Status != protocol.OK {
		t.Fatalf("first answer on a large tank: %+v", big)
	}
	cost := big.Fuel // what an answer costs, delivery to newline
	// The smallest x with which the second answer is ok.
	lo, hi := int64(0), int64(10*meter.Reserve)
	for lo < hi {
		x := (lo + hi) / 2
		if _, second := turns(cost + x); second.Status == protocol.OK {
			hi = x
		} else {
			lo = x + 1
		}
	}
	need := lo
	t.Logf("an answer costs %d; the bot needs %d left after it to read again", cost, need)
	if need <= meter.Reserve || need > meter.Reserve+meter.HostCallPrice+100 {
		t.Errorf("needs %d left after the answer; want the reserve (%d) and the little code to the read", need, meter.Reserve)
	}
	first, second := turns(cost + need - 1)
	if first.Status != protocol.OK || first.Fuel != cost {
		t.Fatalf("first answer on a tank of %d: %+v, want ok spending %d", cost+need-1, first, cost)
	}
	if second.Status != protocol.Fuel || second.Fuel != 0 || second.Detail != "ran out of fuel" {
		t.Errorf("second answer with %d left after the first: %+v, want fuel, 0 spent", need-1, second)
	}
}
