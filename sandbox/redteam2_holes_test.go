package sandbox

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/arenabots/arena/protocol"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// Holes the third red team found (sandbox/redteam2_test.go has the attacks
// that hold). Each test asserts what issue 9 demands and fails today.

// HOLE: a host call that touches the guest's memory at addresses the bot
// chooses pays no memory surcharge. fd_write to stdout reads (scans for a
// newline) every byte of every iovec, and an iovec costs 32 units whatever
// the memory's size. 60,000 two-byte iovecs, each across the boundary of
// two 4 KiB pages of a 248 MiB memory, in a shuffled order, make every
// iovec two TLB misses (nested page walks under the VM) and cache misses,
// for 32 units, where a load pays 1 + 128 for one at the dear prices
// (start-up, and a chess clock's answer past 20,000,000). The start-up
// allowance spent on it takes 1.5-2 times the CPU of the same allowance
// spent on cost model 4's pointer chase through the same memory, the
// dearest work the prices were set for (docs/fuel.md), measured at the same
// moment: 0.7-1.2 s of a thread's CPU against 0.37-0.6 s at a load of 3-7,
// four bots at once. At a load of 25, where docs/fuel.md has the chase's
// start-up at 0.93 s, this is at the 2 s backstop: timeout, a status that
// depends on the load. A chess clock's answer (100,000,000) after its
// newline does the same (0.5-1.19 s measured).
func TestRedTeam3HoleIovecsPayNoSurcharge(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of CPU")
	}
	const n = 60_000
	iovecs := compileBytes(t, inStartup(scattered(Echo{MinPages: 3968, Turn: Forever(wasiCall(FdWrite, 1, rt3IovAt, n, scratch))}, n, 'x', true)))
	chase := compileBytes(t, chaseModule(3968, true))
	slow := Limits{CPU: time.Minute, Wall: time.Minute} // measure, do not stop
	// Two of each at once (two bots a core, as issue 9 asks the prices to
	// be calibrated), each spending its start-up allowance; each
	// instance's own thread's CPU time is measured.
	var wg sync.WaitGroup
	var mu sync.Mutex
	cpu := map[*Module][]time.Duration{}
	for k := 0; k < 4; k++ {
		mod := []*Module{iovecs, chase}[k%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, err := testRT.Start(context.Background(), mod, Config{Tank: protocolTank(), Limits: slow})
			if err != nil {
				t.Error(err)
				return
			}
			defer in.Stop()
			r := in.Ask(context.Background(), obsWithFuel(`{}`))
			c, _ := in.guestCPU()
			if r.Status != protocol.Fuel || in.StartupFuel() < 99_000_000 {
				t.Errorf("%+v after %d of start-up, want fuel after all of it", r, in.StartupFuel())
			}
			mu.Lock()
			cpu[mod] = append(cpu[mod], c)
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
	wi, wc := worst(cpu[iovecs]), worst(cpu[chase])
	t.Logf("start-up allowance: iovecs %v, pointer chase %v (thread CPU)", cpu[iovecs], cpu[chase])
	if wi > wc*5/4 {
		t.Errorf("iovecs took %v of CPU for the start-up allowance, %.1f times the pointer chase (%v), the dearest work the prices are set for", wi, float64(wi)/float64(wc), wc)
	}
}

// HOLE: a stopped instance is not gone at once when it is inside one host
// call: the kill flag is looked at only when the guest pays for something
// (a check, a host call's charge or its return), and a single fd_write may
// carry as many iovecs as its answer can pay for: 2.7 million under a chess
// clock's 100,000,000 (Lines and Boxes). This bot's iovec array starts
// with its answer, "{}\n", then 2.7 million two-byte iovecs across the page
// boundaries of 248 MiB (TestRedTeam3HoleIovecsPayNoSurcharge): its answer
// is ok at once, and the host call goes on for seconds after it, through a
// Stop. Issue 9: "the instance stops running at once (no work of the bot
// goes on after the verdict)"; TestRedTeam2StopsAtOnce allows the largest
// single operation 1 s of CPU. Stop waits for the call (5 s of grace, after
// which it leaves the instance running and returns).
func TestRedTeam3HoleStopWaitsForHostCall(t *testing.T) {
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
