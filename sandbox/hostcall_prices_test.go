package sandbox

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/arenabots/arena/protocol"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// Holes the third red team found (sandbox/meter_attacks_test.go has the attacks
// that hold). Each test asserts what issue 9 demands and fails today.

// Once a hole (fixed): a host call that touches the guest's memory at addresses the bot
// chooses pays no memory surcharge. fd_write to stdout reads (scans for a
// newline) every byte of every iovec, and an iovec costs 32 units whatever
// the memory's size. 60,000 two-byte iovecs, each across the boundary of
// two 4 KiB pages of a 248 MiB memory, in a shuffled order, make every
// iovec two TLB misses (nested page walks under the VM) and cache misses,
// for 32 units, where cost model 4 charges a load 1 + 128 for one at the
// dear prices (start-up, and a chess clock's answer past 20,000,000). Two
// such bots and two plain loops at once (two a core, as issue 9 asks the
// prices to be calibrated), each spending a chess clock's answer of
// 100,000,000 after answering: the iovecs took 0.8-1.2 s of their threads'
// CPU at a load of 3-7, 16-24 times the plain loop beside them, where the
// dear prices aim at 10 times (5 ns a unit against 0.5, docs/fuel.md of
// cost model 4; under cost model 3 no work was to take more than 5 times).
// On a loaded machine a miss costs twice as much (docs/fuel.md), which puts
// the answer at the 2 s backstop: timeout, a status that depends on the
// load. The same holds for the start-up allowance, and for a scan of one
// large iovec (64 bytes a unit, streamed from memory: 1.1 s for a start-up
// at a load of 14).
// maxUnspent bounds what an answer that ends in fuel leaves in its
// tank: less than the price of its dearest call that did not fit (here
// fd_write with meter.HostMaxIovecs iovecs in 248 MiB, about 300,000).
const maxUnspent = 400_000

func TestIovecsPayNoSurcharge(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of CPU")
	}
	const n = 60_000
	answer := wasiCall(FdWrite, 1, 8, 1, 24)
	iovecs := compileBytes(t, scattered(Echo{MinPages: 3968, Turn: Cat(answer, Forever(wasiCall(FdWrite, 1, rt3IovAt, n, scratch)))}, n, 'x', true))
	plain := compileBytes(t, Echo{TurnLocals: 1, Turn: Cat(answer, Forever(Get(0), I32(1), I32Add, Set(0)))}.Module())
	slow := Limits{CPU: time.Minute, Wall: time.Minute} // measure, do not stop
	var wg sync.WaitGroup
	var mu sync.Mutex
	cpu := map[*Module][]time.Duration{}
	for k := 0; k < 4; k++ {
		mod := []*Module{iovecs, plain}[k%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, err := testRT.Start(context.Background(), mod, Config{Tank: &Tank{Left: 1e9, Cap: 1e9, Answer: perAnswer}, Limits: slow})
			if err != nil {
				t.Error(err)
				return
			}
			defer in.Stop()
			// Timed from before the first question: the work after the
			// answer may run before or after the first Ask returns.
			c0, _ := in.guestCPU()
			if r := in.Ask(context.Background(), obsWithFuel(`{}`)); r.Status != protocol.OK {
				t.Errorf("first answer %+v", r)
				return
			}
			// The rest of the first answer's 100,000,000 goes on the
			// work after the answer; the second question waits for it.
			r := in.Ask(context.Background(), obsWithFuel(`{}`))
			c1, _ := in.guestCPU()
			if left := in.Tank().Fuel(); r.Status != protocol.Fuel || left > 1e9-perAnswer+maxUnspent {
				t.Errorf("second answer %+v with %d left, want fuel after the first answer's bound", r, left)
			}
			mu.Lock()
			cpu[mod] = append(cpu[mod], c1-c0)
			mu.Unlock()
		}()
	}
	wg.Wait()
	worst := func(ds []time.Duration) (w time.Duration) {
		for _, d := range ds {
			w = max(w, d)
		}
		return w
	}
	wi, wp := worst(cpu[iovecs]), worst(cpu[plain])
	t.Logf("100,000,000 after an answer: iovecs %v, plain loop %v (thread CPU)", cpu[iovecs], cpu[plain])
	// The dear prices aim at 5 ns of CPU a unit (docs/fuel.md), 0.5 s for
	// these 100,000,000; the plain loop's rate is for comparison (it took
	// 0.12-0.2 ns a unit here, the iovecs 2.0-2.5, when the test measured
	// from the first question, 27 November).
	if limit := time.Duration(100_000_000 * rt5DearRate * raceScale); wi > limit {
		t.Errorf("iovecs took %v of CPU for 100,000,000 fuel (%.0f times the plain loop's %v), more than %v", wi, float64(wi)/float64(wp), wp, limit)
	}
}

// Once a hole (fixed): a stopped instance is not gone at once when it is inside one host
// call: the kill flag is looked at only when the guest pays for something
// (a check, a host call's charge or its return), and a single fd_write may
// carry as many iovecs as its answer can pay for: 2.7 million under a chess
// clock's 100,000,000 (Lines and Boxes). This bot's iovec array starts
// with its answer, "{}\n", then 2.7 million two-byte iovecs across the page
// boundaries of 248 MiB (TestIovecsPayNoSurcharge): its answer
// is ok at once, and the host call goes on for seconds after it, through a
// Stop. Issue 9: "the instance stops running at once (no work of the bot
// goes on after the verdict)"; TestStopsAtOnce allows the largest
// single operation 1 s of CPU. Stop waits for the call (5 s of grace, after
// which it leaves the instance running and returns).
func TestStopWaitsForHostCall(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of CPU")
	}
	const n, k = 60_000, 45 // iovecs in scattered's array, copies of it
	all := int32(1 + n*k)
	turn := Cat(
		iovec(rt3IovAt-8, 16, 3), // the answer "{}\n" of the echo module
		Repeat(Cat(Get(0), I32(8*n), I32Add, Tee(0), I32(rt3IovAt), I32(8*n), MemoryCopy), k-1),
		wasiCall(FdWrite, 1, rt3IovAt-8, all, scratch))
	mod := compileBytes(t, scattered(Echo{MinPages: 3968, TurnLocals: 1, Turn: Cat(I32(rt3IovAt), Set(0), turn)}, n, 'x', true))
	in, err := testRT.Start(context.Background(), mod, Config{Tank: &Tank{Left: 1e9, Cap: 1e9, Answer: perAnswer}})
	if err != nil {
		t.Fatal(err)
	}
	r := in.Ask(context.Background(), obsWithFuel(`{}`))
	if r.Status != protocol.OK || string(r.Line) != "{}" {
		t.Fatalf("answer %+v, want ok {}", r)
	}
	start, cpu := time.Now(), processCPU()
	in.Stop()
	took, cpu := time.Since(start), processCPU()-cpu
	running := false
	select {
	case <-in.done:
	default:
		running = true
	}
	t.Logf("Stop took %v, %v of CPU; the guest still running after it: %v", took, cpu, running)
	if running {
		t.Errorf("Stop returned after %v with the guest still running", took)
	}
	if cpu > time.Second*raceScale {
		t.Errorf("Stop took %v of CPU: the bot's host call went on after it was stopped", cpu)
	}
}
