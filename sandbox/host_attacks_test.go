package sandbox

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// The second red team's corpus (the tests of this file): attacks on the host's side
// of the sandbox (stdio, WASI argument handling, the clocks), written from
// docs/sandbox.md and docs/fuel.md and from reading wazero's WASI code, by
// someone who wrote neither. Every module ends each turn in a status other
// than timeout, spends a bounded amount of the host's CPU time and memory,
// and plays the same way twice.

type red2Case struct {
	name   string
	wasm   func() []byte
	refuse string // a part of the refusal; "" for a module that must run
	obs    int    // turns to play (default 4)
	want   string // the statuses of the turns
	detail string // in the first non-ok reply's detail
	fuel   []int64
	tank   func() *Tank
	// perGame: every instance of a run shares one tank of this much, as
	// a game with a chess clock gives (Lines and Boxes: 1,000,000,000).
	perGame int64
	// cpu bounds the host's CPU time over one run (compile and match);
	// default red2CPU.
	cpu time.Duration
	// check: more to check of the replies ("" when fine).
	check func(rs []protocol.Reply) string
	// memory bounds the host's memory growth (three times that under the
	// race detector); default corpusMemory.
	memory int64
	// skip: a known hole, with where it is fixed or why it is not.
	skip string
	// long: seconds of CPU a run; not with -short (the race run).
	long bool
}

// red2CPU is what one match of a few turns may cost the host. A turn may
// spend at most the 100,000,000 of start-up plus a 20,000,000 tank, which
// the cost model prices to run in well under a second each.
const red2CPU = 4 * time.Second

// processCPU is the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func runRed2(t *testing.T, c red2Case) {
	if c.skip != "" && !*AttackHoles {
		t.Skip(c.skip)
	}
	if c.long && testing.Short() {
		t.Skip("seconds of CPU a run: not in -short")
	}
	wasm := c.wasm()
	var first []protocol.Reply
	for run := 0; run < 2; run++ {
		var rs []protocol.Reply
		var err error
		cpu0, wall0 := processCPU(), time.Now()
		grew := peakRSS(func() {
			var m *Module
			if m, err = testRT.Compile(context.Background(), wasm); err != nil {
				return
			}
			tank := c.tank
			if tank == nil {
				tank = protocolTank
			}
			if c.perGame > 0 {
				shared := &Tank{Left: c.perGame, Cap: c.perGame, Answer: perAnswer}
				tank = func() *Tank { return shared }
			}
			n := c.obs
			if n == 0 {
				n = 4
			}
			rs = play(t, supervised(m, tank, &bot.Log{}), repeat(`{"x":1}`, n)...)
		})
		cpu, wall := processCPU()-cpu0, time.Since(wall0)
		t.Logf("run %d: %d bytes, cpu %v, wall %v, host +%d MiB, err %v, %q %+v", run, len(wasm), cpu, wall, grew>>20, err, statuses(rs), trimReplies(rs))
		if c.refuse != "" {
			if err == nil || !IsRefused(err) || !strings.Contains(err.Error(), c.refuse) {
				t.Fatalf("err = %v, want a refusal containing %q", err, c.refuse)
			}
		} else if err != nil {
			t.Fatalf("compile: %v", err)
		}
		for i, r := range rs {
			if r.Status == protocol.Timeout {
				t.Errorf("turn %d: timeout (%s)", i, r.Detail)
			}
			if c.tank == nil && r.Fuel > max(20_000_000, c.perGame) {
				t.Errorf("turn %d: fuel %d, more than a full tank", i, r.Fuel)
			}
			if c.fuel != nil && i < len(c.fuel) && r.Fuel != c.fuel[i] {
				t.Errorf("turn %d: fuel %d, want %d", i, r.Fuel, c.fuel[i])
			}
		}
		if c.refuse == "" {
			if got := statuses(rs); got != c.want {
				t.Errorf("statuses %q, want %q", got, c.want)
			}
		}
		if c.detail != "" {
			for _, r := range rs {
				if r.Status != protocol.OK {
					if !strings.Contains(r.Detail, c.detail) {
						t.Errorf("detail %q, want it to contain %q", r.Detail, c.detail)
					}
					break
				}
			}
		}
		limit := c.cpu
		if limit == 0 {
			limit = red2CPU
		}
		if bound := memoryBound(t, limit*raceScale); cpu > bound {
			t.Errorf("the host spent %v of CPU time, more than %v", cpu, bound)
		}
		if c.check != nil {
			if msg := c.check(rs); msg != "" {
				t.Error(msg)
			}
		}
		memLimit := int64(corpusMemory)
		if c.memory != 0 {
			memLimit = hostMemoryLimit(c.memory)
		}
		if grew > memLimit {
			t.Errorf("the host's memory grew by %d MiB", grew>>20)
		}
		if run == 0 {
			first = rs
		} else if !sameReplies(first, rs) {
			t.Errorf("a second run differs:\n%+v\n%+v", trimReplies(first), trimReplies(rs))
		}
	}
}

// onceFlag is an address the Turn code uses to do its set-up once.
const onceFlag = scratch + 0x800

// once runs code the first time the Turn function is called.
func once(code ...[]byte) []byte {
	return Cat(I32(onceFlag), []byte{0x28, 2, 0}, I32Eqz, If, Cat(code...), I32(onceFlag), I32(1), Store(0), End)
}

// iovec stores the iovec {ptr, n} at addr.
func iovec(addr, ptr, n int32) []byte {
	return Cat(I32(addr), I32(ptr), Store(0), I32(addr+4), I32(n), Store(0))
}

// inStartup makes the Turn function the module's start function too, so it
// first runs during instantiation, on the start-up allowance.
func inStartup(m []byte) []byte { return WithSections(m, Sec(8, ULEB(TurnFunc))) }

// overdraftTurn: with arena.fuel_left (function 5), bring the tank down to
// about 750 units, then call function 9, whose entry segment of 600 units
// is checked and whose next one, 299 units ending in unreachable, is not:
// it runs on credit and traps.
func overdraftModule() []byte {
	e := Echo{TurnLocals: 1, Turn: Cat(
		Call(extra), I64(750), []byte{0x7d}, I64(8), []byte{0x80}, []byte{0xa7}, Set(0), // n = (fuel_left() - 750) / 8
		Block, Loop, Get(0), I32Eqz, BrIf(1), Get(0), I32(1), I32Sub, Set(0), Br(0), End, End,
		Call(TurnFunc+2))}
	m := withImport(e, "arena", "fuel_left", nil, []byte{i64t})
	body := Cat([]byte{0}, Repeat(Cat(I32(0), Drop), 299), I32(1), If, End, Repeat(Cat(I32(0), Drop), 149), Unreachable, End)
	m = ExtendVec(m, 3, 1, []byte{1})
	return ExtendVec(m, 10, 1, Cat(ULEB(uint64(len(body))), body))
}

// bankThenChase answers three turns at once, banking the protocol's tank
// up to its cap of 20,000,000, and spends it all on the fourth.
func bankThenChase() []byte {
	m := chaseModule(3968, false)
	// The chase is the Turn's code after its first two instructions
	// (i32.const, local.set); guard it with a count of the turns.
	count := Cat(I32(onceFlag), I32(onceFlag), []byte{0x28, 2, 0}, I32(1), I32Add, Store(0),
		I32(onceFlag), []byte{0x28, 2, 0}, I32(4), []byte{0x48}, If, []byte{0x0f}, End) // if turns < 4 { return }
	return replaceTurnPrefix(m, count)
}

// replaceTurnPrefix puts code at the start of the Turn function (function
// TurnFunc, the third body of the code section).
func replaceTurnPrefix(m, code []byte) []byte {
	sec := SectionOf(m, 10)
	n, k := ReadULEB(sec)
	out := Cat(ULEB(n))
	r := sec[k:]
	for i := 0; i < int(n); i++ {
		size, k := ReadULEB(r)
		body := r[k : k+int(size)]
		r = r[k+int(size):]
		if i == 2 {
			// body: local declarations, then code
			nl, kk := ReadULEB(body)
			decl := kk
			for j := 0; j < int(nl); j++ {
				_, a := ReadULEB(body[decl:])
				decl += a + 1
			}
			body = Cat(body[:decl], code, body[decl:])
		}
		out = Cat(out, ULEB(uint64(len(body))), body)
	}
	return WithSections(m, Sec(10, out))
}

// lineIs checks the answer line of every ok reply.
func lineIs(want string) func(rs []protocol.Reply) string {
	return func(rs []protocol.Reply) string {
		for i, r := range rs {
			if r.Status == protocol.OK && string(r.Line) != want {
				return fmt.Sprintf("turn %d: answer %q, want %q", i, r.Line, want)
			}
		}
		return ""
	}
}

// The echo module's answer is "{}"; these modules store an errno over the
// "}" ('0' + errno), so the answer says what the host call returned.
const answerAtT = 16

func storeErrno(call []byte) []byte {
	return Cat(I32(answerAtT+1), call, I32('0'), I32Add, []byte{store8, 0, 0})
}

var red2Corpus = []red2Case{
	// FIXED (instance.go, stdoutWriter.Write): the host took one step per
	// line, about 4 ns each; a write of 64 MiB of newlines costs 1M fuel
	// and took over a second. The start-up allowance bought 25 s of it.
	{name: "64 MiB of newlines to stdout, forever, in start-up",
		wasm: func() []byte {
			n := int32(64 << 20)
			return inStartup(Echo{MinPages: 1100, Turn: Cat(
				once(I32(bigAt), I32('\n'), I32(n), MemoryFill, iovec(scratch, bigAt, n)),
				Forever(wasiCall(FdWrite, 1, scratch, 1, scratch+8)))}.Module())
		}, want: "fuel fuel fuel fuel", detail: "start-up allowance"},
	{name: "32 MiB of newlines to stdout, forever, in a turn",
		wasm: func() []byte {
			// 32 MiB: under cost model 3 filling 64 MiB (8,388,616)
			// costs more than a turn's tank, and the writes never came.
			n := int32(32 << 20)
			return Echo{MinPages: 1100, Turn: Cat(
				once(I32(bigAt), I32('\n'), I32(n), MemoryFill, iovec(scratch, bigAt, n)),
				Forever(wasiCall(FdWrite, 1, scratch, 1, scratch+8)))}.Module()
		},
		// The first newline is the answer; the rest of the tank goes on
		// dropped lines, and the next turn finds the instance dry. (Model
		// 4: 4,719,005, the fill paying the surcharge of 68 MiB; model 3:
		// 4,718,915.)
		want: "ok fuel ok fuel", fuel: []int64{4_719_005, 0, 4_719_005, 0}, check: lineIs("")},
	{name: "64 MiB of newlines to stderr, forever, in start-up",
		wasm: func() []byte {
			n := int32(64 << 20)
			return inStartup(Echo{MinPages: 1100, Turn: Cat(
				once(I32(bigAt), I32('\n'), I32(n), MemoryFill, iovec(scratch, bigAt, n)),
				Forever(wasiCall(FdWrite, 2, scratch, 1, scratch+8)))}.Module())
		}, want: "fuel fuel fuel fuel", detail: "start-up allowance"},
	// FIXED (hostcost.go, chargeListener.Before): wazero sizes the
	// buffers as count*48 in 32 bits, so 2^28 subscriptions wrapped to an
	// empty buffer and it panicked indexing past it (status crash, "index
	// out of range"); now the call returns EFAULT (21: "{E").
	{name: "poll_oneoff of 2^28 subscriptions",
		wasm: func() []byte {
			return Echo{Turn: storeErrno(Cat(I32(scratch), I32(scratch+4096), I32(1<<28), I32(scratch+8192), Call(PollOneoff)))}.Module()
		}, want: "ok ok ok ok", check: lineIs("{E")},
	{name: "poll_oneoff of 2^32-1 subscriptions",
		wasm: func() []byte {
			return Echo{Turn: storeErrno(Cat(I32(scratch), I32(scratch+4096), I32(-1), I32(scratch+8192), Call(PollOneoff)))}.Module()
		}, want: "ok ok ok ok", check: lineIs("{E")},
	{name: "poll_oneoff of 89,478,485 subscriptions at 0 (the most that do not wrap)",
		wasm: func() []byte {
			return Echo{Turn: storeErrno(Cat(I32(0), I32(0), I32(89_478_485), I32(scratch+8192), Call(PollOneoff)))}.Module()
		}, want: "ok ok ok ok", check: lineIs("{E")},
	{name: "fd_write through call_indirect, forever",
		wasm: func() []byte {
			m := Echo{Table: true, TableMin: 1, Turn: Forever(I32(2), I32(0), I32(1), I32(scratch), I32(0), []byte{0x11, 0, 0}, Drop)}.Module()
			return WithSections(m, Sec(9, Cat(ULEB(1), []byte{0, 0x41, 0, 0x0b, 1, FdWrite})))
		}, want: "fuel fuel fuel fuel", fuel: []int64{4_999_140, 4_999_140, 4_999_140, 4_999_140}},
	{name: "fd_renumber(1, 0) every turn",
		wasm: func() []byte {
			return withImport(Echo{Turn: storeErrno(Cat(I32(1), I32(0), Call(extra)))}, "wasi_snapshot_preview1", "fd_renumber", []byte{i32t, i32t}, []byte{i32t})
		}, want: "ok ok ok ok", check: lineIs("{j")}, // ENOTSUP (58)
	{name: "fd_close(0) in start-up",
		wasm: func() []byte {
			m := withImport(Echo{Turn: wasiCall(extra, 0)}, "wasi_snapshot_preview1", "fd_close", []byte{i32t}, []byte{i32t})
			return WithSections(m, Sec(8, ULEB(TurnFunc+1)))
		}, want: "crash crash crash crash", detail: "returned from _start"},
	{name: "proc_exit(-1)",
		wasm: func() []byte {
			return withImport(Echo{Turn: Cat(I32(-1), Call(extra))}, "wasi_snapshot_preview1", "proc_exit", []byte{i32t}, nil)
		}, want: "crash crash crash crash", detail: "exited with code 4294967295"},
	{name: "arena.fuel_left, forever",
		wasm: func() []byte {
			return withImport(Echo{Turn: Forever(Call(extra), Drop)}, "arena", "fuel_left", nil, []byte{i64t})
		}, want: "fuel fuel fuel fuel", fuel: []int64{4_999_222, 4_999_222, 4_999_222, 4_999_222}},
	{name: "sched_yield, forever",
		wasm: func() []byte {
			return withImport(Echo{Turn: Forever(Call(extra), Drop)}, "wasi_snapshot_preview1", "sched_yield", nil, []byte{i32t})
		}, want: "fuel fuel fuel fuel", fuel: []int64{4_999_222, 4_999_222, 4_999_222, 4_999_222}},
	{name: "args_get at the last bytes of memory",
		wasm: func() []byte {
			return withImport(Echo{Turn: storeErrno(Cat(I32(2*65536-4), I32(2*65536-3), Call(extra)))}, "wasi_snapshot_preview1", "args_get", []byte{i32t, i32t}, []byte{i32t})
		}, want: "ok ok ok ok", check: lineIs("{E")},
	{name: "fd_readdir of stdin into 128 KiB, forever",
		wasm: func() []byte {
			return withImport(Echo{Turn: Forever(I32(0), I32(0), I32(2<<16), I64(0), I32(scratch), Call(extra), Drop)}, "wasi_snapshot_preview1", "fd_readdir", []byte{i32t, i32t, i32t, i64t, i32t}, []byte{i32t})
		}, want: "fuel fuel fuel fuel", fuel: []int64{4_998_812, 4_998_812, 4_998_812, 4_998_812}},
	{name: "sleep for ever, twice, and read both clocks",
		wasm: func() []byte {
			sub := Cat(I32(scratch+8), I32(0), []byte{store8, 0, 0}, I32(scratch+16), I32(1), Store(0), I32(scratch+24), I64(1<<63-1), []byte{i64Store, 3, 0}, I32(scratch+40), I32(0), Store(0))
			sleep := Cat(sub, wasiCall(PollOneoff, scratch, scratch+64, 1, scratch+128))
			// t = clock(id); if t < last[id] { unreachable }; last[id] = t
			check := func(id int32, at int32) []byte {
				return Cat(I32(id), I64(0), I32(scratch+200), Call(ClockTimeGet), Drop,
					I32(scratch+200), []byte{i64Load, 3, 0}, I32(at), []byte{i64Load, 3, 0}, []byte{0x54}, If, Unreachable, End, // i64.lt_u
					I32(at), I32(scratch+200), []byte{i64Load, 3, 0}, []byte{i64Store, 3, 0})
			}
			return Echo{Turn: Cat(check(0, scratch+208), check(1, scratch+216), sleep, check(0, scratch+208), check(1, scratch+216), sleep, check(0, scratch+208), check(1, scratch+216),
				// the wall clock stops at the last nanosecond an int64 holds
				I32(scratch+208), []byte{i64Load, 3, 0}, I64(1<<63-1), []byte{0x52}, If, Unreachable, End)}.Module() // i64.ne
		}, want: "ok ok ok ok"},
	{name: "a relative clock subscription of -1 (2^64-1 ns)",
		wasm: func() []byte {
			sub := Cat(I32(scratch+8), I32(0), []byte{store8, 0, 0}, I32(scratch+16), I32(1), Store(0), I32(scratch+24), I64(-1), []byte{i64Store, 3, 0}, I32(scratch+40), I32(0), Store(0))
			return Echo{Turn: storeErrno(Cat(sub, I32(scratch), I32(scratch+64), I32(1), I32(scratch+128), Call(PollOneoff)))}.Module()
		}, want: "ok ok ok ok", check: lineIs("{0")},
	{name: "a tail call", wasm: func() []byte { return Echo{Turn: []byte{0x12, TurnFunc}}.Module() },
		refuse: "tail-call"},
	// FIXED (sandbox/meter/code.go, noteCall): the meter's estimate of the
	// stack (then 128 bytes plus 16 a local) left out what a
	// call passes back: wazero keeps room in the caller's frame for the
	// callee's parameters and results, some 20 KB for 1,000 values, so
	// 7,633 fuel grew its stack to its own ceiling (about 100 MB, not the
	// 400 MB docs/sandbox.md says) before the meter's 16 MiB bound saw it:
	// "trap: stack overflow", 0.2 s of CPU and 100-150 MB of host memory a
	// turn, 311-364 MiB over four restarts. The calls' parameters and
	// results now count in the caller's frame.
	{name: "recursion returning 1,000 values",
		wasm: func() []byte {
			m := Echo{Turn: Cat(Call(TurnFunc+1), Repeat(Drop, 1000))}.Module()
			m = ExtendVec(m, 1, 1, Cat([]byte{0x60, 0}, ULEB(1000), Repeat([]byte{i32t}, 1000)))
			m = ExtendVec(m, 3, 1, []byte{4})
			body := Cat([]byte{0}, Call(TurnFunc+1), End)
			return ExtendVec(m, 10, 1, Cat(ULEB(uint64(len(body))), body))
		}, want: "crash crash crash crash", detail: "unreachable", tank: bigTank, memory: 160 << 20},
	{name: "recursion through a function that calls one returning 1,000 values",
		wasm: func() []byte {
			// function 8 (G): call 9; drop 1,000; call 8. function 9 (H): 1,000 constants.
			m := Echo{Turn: Call(TurnFunc + 1)}.Module()
			m = ExtendVec(m, 1, 1, Cat([]byte{0x60, 0}, ULEB(1000), Repeat([]byte{i32t}, 1000)))
			m = ExtendVec(m, 3, 2, []byte{1, 4})
			g := Cat([]byte{0}, Call(TurnFunc+2), Repeat(Drop, 1000), Call(TurnFunc+1), End)
			h := Cat([]byte{0}, Repeat(I32(0), 1000), End)
			return ExtendVec(m, 10, 2, Cat(ULEB(uint64(len(g))), g, ULEB(uint64(len(h))), h))
		}, want: "crash crash crash crash", detail: "unreachable", tank: bigTank, memory: 160 << 20},
	// Fixed by cost model 4 (a surcharge on every memory access by the
	// memory's size, docs/fuel.md). It was: memory latency. A load costs 1 like an add, but a
	// chain of dependent loads through 248 MiB misses every cache and the
	// TLB (a nested page walk under KVM): 85-160 ns of CPU a hop of 4
	// units here, against 0.45 ns a unit for the plain loop measured in
	// the same run (TestChaseRate) -- 100 to 350 times. 20M fuel
	// took 1.7-3.2 s of CPU (7-12 s wall at a load of 19), the start-up
	// allowance (67.5M after the memory's price) 6-10 s: timeout, not
	// fuel, on an idle machine too. madvise(MADV_HUGEPAGE) on the mapping
	// halved it (1.8 s for 20M). No price per instruction fixes this
	// without pricing every load for the worst case; options for the
	// cost model's owner: a higher price for loads and stores (a few
	// units), a smaller start-up allowance and cap, huge pages, and a
	// backstop sized for the worst rate (about 10 s for the first answer).
	{name: "pointer chase through 248 MiB in start-up",
		wasm: func() []byte { return chaseModule(3968, true) },
		want: "fuel fuel fuel fuel", detail: "start-up allowance"},
	{name: "pointer chase through 248 MiB on a full tank of 20,000,000",
		wasm: bankThenChase, obs: 6,
		want: "ok ok ok fuel ok ok", cpu: 2 * time.Second, check: spentTheTank},
	// Fixed (the backstop now counts CPU time): the first answer's 2 s of
	// wall clock included instantiation and start-up; touching 248 MiB
	// (63,488 page faults) and spinning through the rest of the allowance
	// took 0.3 s of CPU but over 2 s of wall clock at a load of 20-24.
	{name: "a start function that touches 248 MiB, then spins",
		wasm: func() []byte {
			return inStartup(Echo{MinPages: meter.MaxMemoryPages, Turn: Cat(I32(0), I32(7), I32(meter.MaxMemoryPages*65536), MemoryFill, Forever())}.Module())
		}, want: "fuel fuel fuel fuel", detail: "start-up allowance"},
	// Fixed (every check now asks for a reserve): a segment of up to 1,000
	// units that followed a checked one ran unchecked, on credit; ending in
	// a trap, the turn was crash, not fuel.
	{name: "an unchecked segment past an empty tank, ending in a trap",
		wasm: overdraftModule, want: "fuel fuel fuel fuel", detail: "ran out of fuel"},
}

// spentTheTank: the fourth answer spent its tank (four tanks of 5,000,000
// less the first three answers) but what it could not pay: the reserve at
// the price of 248 MiB (1,000 units of code, each of which may be an access
// paying 1 + 25) and the code of a hop or two.
func spentTheTank(rs []protocol.Reply) string {
	tank := 20_000_000 - rs[0].Fuel - rs[1].Fuel - rs[2].Fuel
	r := int64(meter.Reserve * (1 + meter.AccessPrice(meter.MaxMemoryPages, false)))
	if f := rs[3].Fuel; f > tank-r || f < tank-r-2_000 {
		return fmt.Sprintf("turn 3 spent %d, want %d to %d", f, tank-r-2_000, tank-r)
	}
	return ""
}

// NEW, not fixed: the chess clock of Lines and Boxes. Its tank of
// 1,000,000,000 (game.FuelPolicy.PerGame) may all be spent in one answer,
// fifty times the 20,000,000 the prices are calibrated to fit in the 2 s
// backstop (docs/fuel.md): a plain loop took 0.27 s of CPU for it (1 s of
// wall clock at a load of 22 on the 2 cores), memory.fill of 1 MiB 1.1 s of
// CPU and the backstop fired, twice; and what the killed instance had spent
// of the shared tank by then depends on the load, so the next turns' fuel
// differed from run to run (128M, 250M): the replay does not rerun. Proposed fix (wasmbot and
// the sandbox): a per-answer limit on what a chess-clock turn may spend
// (the 20,000,000 cap, say, with the clock as the game's total), or a
// backstop that grows with the fuel the answer may spend.
//
// Fixed: a chess clock's answer may spend at most Tank.Answer (Lines and
// Boxes: 100,000,000, the start-up allowance the prices are calibrated for).
const perAnswer = 100_000_000

// spentTheBound: every answer ran dry at the per-answer bound, having spent
// all of it but what the next check or bulk operation would have cost.
func spentTheBound(rs []protocol.Reply) string {
	for i, r := range rs {
		if r.Fuel > perAnswer || r.Fuel < perAnswer-200_000 {
			return fmt.Sprintf("turn %d spent %d, want just under the bound %d", i, r.Fuel, perAnswer)
		}
	}
	return ""
}

var red2PerGame = []red2Case{
	{name: "a chess-clock tank of 1e9 spent in one answer, a plain loop",
		wasm:    func() []byte { return Echo{TurnLocals: 1, Turn: Forever(Get(0), I32(1), I32Add, Set(0))}.Module() },
		perGame: 1_000_000_000, want: "fuel fuel fuel fuel", check: spentTheBound, cpu: 8 * time.Second},
	{name: "a chess-clock tank of 1e9 spent in one answer, memory.fill of 1 MiB",
		wasm: func() []byte {
			return Echo{MinPages: 64, Turn: Forever(I32(bigAt), I32(7), I32(1<<20), MemoryFill)}.Module()
		},
		perGame: 1_000_000_000, want: "fuel fuel fuel fuel", check: spentTheBound, cpu: 8 * time.Second},
	// Cost model 4: beyond 20,000,000 of one answer memory accesses pay the
	// dear prices, so an answer of 100,000,000 chasing pointers through
	// 248 MiB takes no longer than a full tank does.
	{name: "a chess-clock tank of 1e9 spent in one answer, chasing pointers through 248 MiB",
		wasm:    func() []byte { return chaseModule(3968, false) },
		perGame: 1_000_000_000, want: "fuel fuel fuel fuel", check: spentTheBound, cpu: 8 * time.Second, long: true},
}

func TestHostAttackCorpus(t *testing.T) {
	for _, c := range append(red2Corpus, red2PerGame...) {
		t.Run(c.name, func(t *testing.T) { runRed2(t, c) })
	}
}

// chaseModule is an echo module whose memory of pages 64 KiB pages holds a
// cycle of pointers, one in each 4 KiB page in a shuffled order (active data
// segments, so it costs the start-up allowance nothing but the memory), and
// whose Turn follows it forever: every load a cache and TLB miss, for 4
// units of fuel (local.get, i32.load, local.tee, br_if).
func chaseModule(pages int, startup bool) []byte {
	return chaseHops(pages, 0, startup)
}

// chaseHops is chaseModule's, following the cycle for the given number of
// hops and then answering (forever for 0): 8 units a hop and the load's
// surcharge (local.get, i32.load, local.set, the count down and br_if).
func chaseHops(pages, hops int, startup bool) []byte {
	n := pages * 16
	perm := fixedShuffle(n, 88172645463325252)
	addr := func(k int) int32 { return perm[k]*4096 + int32(k%63)*64 + 64 }
	m := chaseOf(pages, n, addr, 2)
	if hops > 0 {
		m = chaseOfTurn(pages, n, addr, 2, Cat(
			I32(addr(0)), Set(0), I32(int32(hops)), Set(1),
			Loop, Get(0), []byte{0x28, 2, 0}, Set(0), Get(1), I32(1), I32Sub, Tee(1), BrIf(0), End))
	}
	if startup {
		m = inStartup(m)
	}
	return m
}

// chaseOf is the echo module whose memory holds a cycle of n pointers, the
// k-th at addr(k) pointing at the next, and whose Turn follows it forever
// with i32.load of the given alignment hint.
func chaseOf(pages, n int, addr func(k int) int32, align byte) []byte {
	return chaseOfTurn(pages, n, addr, 1, Cat(
		I32(addr(0)), Set(0),
		Loop, Get(0), []byte{0x28, align, 0}, Tee(0), BrIf(0), End))
}

// chaseOfTurn is the echo module whose memory holds chaseOf's cycle, with
// the given Turn, of that many i32 locals.
func chaseOfTurn(pages, n int, addr func(k int) int32, locals uint32, turn []byte) []byte {
	var segs []byte
	for k := 0; k < n; k++ {
		a, next := addr(k), addr((k+1)%n)
		segs = append(append(append(append(segs, 0), I32(a)...), End...), 4, byte(next), byte(next>>8), byte(next>>16), byte(next>>24))
	}
	e := Echo{MinPages: pages, TurnLocals: locals, Turn: turn}
	return ExtendVec(e.Module(), 11, n, segs)
}

// withImport is the echo module with one more import, function 5, of the
// type (params) -> (results); the Turn function is then TurnFunc+1.
func withImport(e Echo, mod, name string, params, results []byte) []byte {
	e.Import = mod + "." + name
	m := e.Module()
	m = ExtendVec(m, 1, 1, Cat([]byte{0x60}, ULEB(uint64(len(params))), params, ULEB(uint64(len(results))), results))
	entry := Cat(Name(mod), Name(name), []byte{0, 1})
	i := bytes.Index(m, entry)
	if i < 0 {
		panic("import not found")
	}
	m[i+len(entry)-1] = byte(4 + e.Types)
	return m
}

const (
	extra    = 5 // the function withImport adds
	i32t     = 0x7f
	i64t     = 0x7e
	store8   = 0x3a
	i64Store = 0x37
	i64Load  = 0x29
)

// TestChaseRate measures the host's CPU time per unit of fuel of the
// pointer chase against the plain loop, in the same run, and holds the
// chase to the cost model's promise (docs/fuel.md): a full tank of
// 20,000,000 in well under a second.
func TestChaseRate(t *testing.T) {
	plain := compileBytes(t, Echo{Turn: Forever(Get(0), I32(1), I32Add, Set(0)), TurnLocals: 1}.Module())
	chase := compileBytes(t, chaseModule(3968, false))
	rate := func(mod *Module) time.Duration {
		const tank = 20_000_000
		in, err := testRT.Start(context.Background(), mod, Config{Tank: &Tank{PerTurn: tank, Cap: tank}, Limits: Limits{Wall: time.Minute}})
		if err != nil {
			t.Fatal(err)
		}
		defer in.Stop()
		c0 := processCPU()
		r := in.Ask(context.Background(), obsWithFuel(`{}`))
		c := processCPU() - c0
		if r.Status != protocol.Fuel {
			t.Fatalf("reply %+v, want fuel", r)
		}
		t.Logf("start-up %d, then a tank of %d: %v of CPU", in.StartupFuel(), tank, c)
		return c
	}
	p, c := rate(plain), rate(chase)
	t.Logf("chase / plain: %.0f", float64(c)/float64(p))
	// The prices aim at 0.5 s for this (docs/fuel.md, cost model 4), the
	// start-up's page faults of 248 MiB included; the test asserts only
	// what must never break, the 2 s backstop, since the CPU time of a
	// cache miss grows with the machine's load.
	if c > memoryBound(t, 2*time.Second*raceScale) {
		t.Errorf("20,000,000 fuel of pointer chasing took %v of CPU", c)
	}
}

// AttackHoles runs the red team's tests of holes not fixed yet, which are
// skipped otherwise: go test -run HostAttackCorpus ./sandbox/ -args -attacks.holes
var AttackHoles = flag.Bool("attacks.holes", false, "run the red team's tests of holes not fixed yet")

// FIXED (instance.go, freeMemories): wazero frees a module's memory when
// the module is closed, but a failed instantiation returns no module, so a
// start function that touched its memory and then trapped, exited or ran
// out of fuel left the whole mapping resident for good: 248 MiB a restart,
// about 1 GiB a match, until the host ran out of memory. Three instances of
// each such module in a row leave the resident and the virtual memory where
// they were.
func TestStartFunctionLeak(t *testing.T) {
	const size = meter.MaxMemoryPages * 65536
	fill := Cat(I32(0), I32(7), I32(size), MemoryFill) // touch all 248 MiB
	exit := withImport(Echo{MinPages: meter.MaxMemoryPages, Turn: Cat(fill, I32(0), Call(extra))}, "wasi_snapshot_preview1", "proc_exit", []byte{i32t}, nil)
	cases := []struct {
		name   string
		wasm   []byte
		status protocol.Status
		detail string
	}{
		{"a start function that touches 248 MiB and traps",
			inStartup(Echo{MinPages: meter.MaxMemoryPages, Turn: Cat(fill, Unreachable)}.Module()), protocol.Crash, "unreachable"},
		{"a start function that touches 248 MiB and runs out of fuel", // growing past the cap costs 32.5M a try
			inStartup(Echo{MinPages: meter.MaxMemoryPages, Turn: Cat(fill, Forever(I32(65535), MemoryGrow, Drop))}.Module()), protocol.Fuel, "start-up allowance"},
		{"a start function that touches 248 MiB and exits",
			WithSections(exit, Sec(8, ULEB(TurnFunc+1))), protocol.Crash, "exited with code 0"},
		{"a data segment past the end of 248 MiB",
			ExtendVec(Echo{MinPages: meter.MaxMemoryPages}.Module(), 11, 1, Cat([]byte{0}, I32(size-1), End, ULEB(2), []byte{1, 2})), protocol.Crash, "out of bounds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mod := compileBytes(t, c.wasm)
			play := func() {
				// A backstop of a minute: this is about the memory, and
				// instantiating 248 MiB of touched memory can take seconds
				// on a loaded machine (the known start-up item).
				in, err := testRT.Start(context.Background(), mod, Config{Tank: protocolTank(), Limits: Limits{Wall: time.Minute}})
				if err != nil {
					t.Fatal(err)
				}
				r := in.Ask(context.Background(), obsWithFuel(`{}`))
				in.Stop()
				if r.Status != c.status || !strings.Contains(r.Detail, c.detail) {
					t.Fatalf("reply %+v, want %s (%s)", r, c.status, c.detail)
				}
			}
			play()
			before, rss := measure(t), rssBytes()
			for i := 0; i < 3; i++ {
				play()
			}
			after, rss2 := measure(t), rssBytes()
			t.Logf("resident %+d MiB, virtual %+d MiB", (rss2-rss)>>20, (int64(after.vmSize)-int64(before.vmSize))>>20)
			if rss2 > rss+200<<20 {
				t.Errorf("resident memory grew by %d MiB", (rss2-rss)>>20)
			}
			if after.vmSize > before.vmSize+1<<30 {
				t.Errorf("virtual memory grew by %d MiB", (after.vmSize-before.vmSize)>>20)
			}
		})
	}
}

// Fixed: Runtime.Compile used to hold the Runtime's one lock for the whole
// compile, the child process included (up to 10 s of CPU), and a module
// already compiled was looked up under the same lock: while a stranger's
// slow module compiled, every match that opened a bot waited for it. The
// caches are now looked up under r.mu alone, and compiling itself takes a
// slot of r.gate.
func TestCompileDoesNotBlockCacheHits(t *testing.T) {
	cached := Echo{}.Module()
	compileBytes(t, cached)
	// Empty ifs are quadratic in wazero's compiler (docs/sandbox.md); a
	// constant new on every run keeps any cache from knowing the module.
	slow := Echo{Turn: Cat(I64(time.Now().UnixNano()), Drop, Repeat(Cat(I32(0), If, End), 3000))}.Module()
	done := make(chan error, 1)
	go func() {
		_, err := testRT.Compile(context.Background(), slow)
		done <- err
	}()
	for !compiling(testRT, slow) { // until the slow compile has begun
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if _, err := testRT.Compile(context.Background(), cached); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Errorf("a module compiled before waited %v for another one's compile (%v)", time.Since(start), err)
	default:
		<-done
	}
}

// A stopped instance is gone at once, even in the middle of the largest
// single operations: the guest ends (its goroutine and memory freed)
// before Stop returns, within the 5 s grace of Stop.
func TestStopsAtOnce(t *testing.T) {
	n := int32(64 << 20)
	cases := []struct {
		name string
		wasm []byte
	}{
		{"writing 64 MiB of newlines to stdout, forever", Echo{MinPages: meter.MaxMemoryPages, Turn: Cat(
			once(I32(bigAt), I32('\n'), I32(n), MemoryFill, iovec(scratch, bigAt, n)),
			Forever(wasiCall(FdWrite, 1, scratch, 1, scratch+8)))}.Module()},
		{"random_get of 64 MiB, forever", Echo{MinPages: meter.MaxMemoryPages, Turn: Forever(wasiCall(RandomGet, bigAt, n))}.Module()},
		{"memory.copy of 32 MiB, forever", Echo{MinPages: meter.MaxMemoryPages, Turn: Forever(I32(bigAt), I32(bigAt+n/2), I32(n/2), MemoryCopy)}.Module()},
		{"a pointer chase through 248 MiB", chaseModule(meter.MaxMemoryPages, false)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mod := compileBytes(t, c.wasm)
			in, err := testRT.Start(context.Background(), mod, Config{Tank: bigTank(), Limits: Limits{Wall: 20 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			// Stop on its own while the guest works: Ask's backstop
			// would stop it too.
			go func() {
				time.Sleep(10 * time.Millisecond)
				in.kill()
			}()
			r := in.Ask(context.Background(), obsWithFuel(`{}`))
			start, cpu := time.Now(), processCPU()
			in.Stop()
			took, cpu := time.Since(start), processCPU()-cpu
			select {
			case <-in.done:
			default:
				t.Fatalf("Stop returned after %v with the guest still running", took)
			}
			// The one bulk operation or host call in progress finishes
			// first: random_get of 240 MiB takes 0.4 s of CPU, 5 s and
			// more of wall clock under the race detector on a loaded
			// machine (hence Stop's grace of 5 s times raceScale); these
			// take a quarter of that.
			t.Logf("%s; stopped in %v, %v of CPU", r.Status, took, cpu)
			if cpu > time.Second*raceScale {
				t.Errorf("Stop took %v of CPU", cpu)
			}
		})
	}
}

// refStdout is stdoutWriter.Write as it was before lines that no answer
// awaits were skipped in one search: one step per line. The fuzz target
// below holds the fast path to it.
type refStdout struct {
	line        []byte
	overflow    bool
	outstanding bool
	replies     []protocol.Reply
}

func (s *refStdout) write(p []byte, maxLine int) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !s.overflow {
			if len(s.line)+len(chunk) > maxLine {
				s.overflow = true
				s.line = s.line[:0]
				if s.outstanding {
					s.outstanding = false
					s.replies = append(s.replies, protocol.Reply{Status: protocol.Malformed})
				}
			} else {
				s.line = append(s.line, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !s.overflow && s.outstanding {
			s.outstanding = false
			s.replies = append(s.replies, protocol.Reply{Status: protocol.OK, Line: append([]byte(nil), s.line...)})
		}
		s.line = s.line[:0]
		s.overflow = false
		p = p[i+1:]
	}
}

// Whatever the bytes, the pieces they are written in and the moments an
// answer is awaited, stdoutWriter gives the same answers and leaves the same
// line in progress as the one-step-per-line reference.
func FuzzStdoutState(f *testing.F) {
	f.Add([]byte("a\nb\n\nccc\ndd"), []byte{3, 0, 1, 200, 2}, uint8(4))
	f.Add([]byte("\n\n\n\nxxxxxxxxxx\nyy"), []byte{1, 1, 9, 0}, uint8(3))
	f.Add(bytes.Repeat([]byte("0123456789\n"), 1000), []byte{255, 7, 0, 128}, uint8(20))
	f.Add(append(append(bytes.Repeat([]byte("x"), 5000), '\n'), bytes.Repeat([]byte("y"), 9000)...), []byte{254, 1, 254, 0, 255}, uint8(100))
	f.Fuzz(func(t *testing.T, out, ops []byte, maxLine uint8) {
		if maxLine == 0 {
			maxLine = 1
		}
		for k := 0; k <= len(out); k += 1 + k/3 {
			if got, want := lastNewline(out[k:]), bytes.LastIndexByte(out[k:], '\n'); got != want {
				t.Fatalf("lastNewline of %d bytes = %d, want %d", len(out)-k, got, want)
			}
		}
		in := &Instance{limits: Limits{MaxLine: int(maxLine)}, tank: &Tank{}, answers: make(chan protocol.Reply, 1<<16)}
		ref := &refStdout{}
		w := stdoutWriter{in}
		// Each op: an odd byte awaits an answer (a delivery), an even one
		// writes the next op/2+1 bytes of out.
		for _, op := range ops {
			if op%2 == 1 {
				in.outstanding, ref.outstanding = true, true
				continue
			}
			n := min(int(op)/2+1, len(out))
			if _, err := w.Write(out[:n]); err != nil {
				t.Fatal(err)
			}
			ref.write(out[:n], int(maxLine))
			out = out[n:]
		}
		var got []protocol.Reply
		for len(in.answers) > 0 {
			got = append(got, <-in.answers)
		}
		if len(got) != len(ref.replies) {
			t.Fatalf("%d answers, want %d", len(got), len(ref.replies))
		}
		for i := range got {
			if got[i].Status != ref.replies[i].Status || !bytes.Equal(got[i].Line, ref.replies[i].Line) {
				t.Errorf("answer %d: %s %q, want %s %q", i, got[i].Status, got[i].Line, ref.replies[i].Status, ref.replies[i].Line)
			}
		}
		if !bytes.Equal(in.line, ref.line) || in.overflow != ref.overflow || in.outstanding != ref.outstanding {
			t.Errorf("left line %q overflow %v outstanding %v, want %q %v %v", in.line, in.overflow, in.outstanding, ref.line, ref.overflow, ref.outstanding)
		}
	})
}

// A bot that chases pointers through 248 MiB for nearly a full tank, the
// dearest work in time a unit, then answers, gets "ok" under the default
// backstop however slow the machine's memory: there the backstop is
// widened by the memory's speed (memoryscale.go).
func TestFullTankOfChasingIsOK(t *testing.T) {
	const tank = 20_000_000
	// 33 units a hop in 248 MiB (8 and the surcharge of 25), the reserve
	// of 26,000 and the answer kept.
	mod := compileBytes(t, chaseHops(3968, (tank-100_000)/33, false))
	in, err := testRT.Start(context.Background(), mod, Config{Tank: &Tank{PerTurn: tank, Cap: tank}})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Stop()
	c0 := processCPU()
	r := in.Ask(context.Background(), obsWithFuel(`{}`))
	c := processCPU() - c0
	if r.Status != protocol.OK {
		t.Fatalf("reply %+v, want ok", r)
	}
	scale, measured := memoryProbe.known()
	t.Logf("%d fuel of chasing in %v of CPU (backstop widened: %v, by %.2f)", r.Fuel, c, measured, scale)
	if r.Fuel < tank*9/10 {
		t.Errorf("the chase spent %d fuel, want nearly the tank of %d", r.Fuel, tank)
	}
}

// The default backstop is widened by the machine's memory scale, and never
// by more than MaxBackstopScale: a spinning bot is stopped at the widened
// limit, and while the scale is being measured, at the widest.
func TestBackstopWidensBySlowMemory(t *testing.T) {
	defaultCPU, machine := DefaultLimits.CPU, memoryProbe
	defer func() { DefaultLimits.CPU, memoryProbe = defaultCPU, machine }()
	DefaultLimits.CPU = 100 * time.Millisecond
	mod := probe(t, "")
	spin := func(t *testing.T, want time.Duration) {
		t.Helper()
		in, err := testRT.Start(context.Background(), mod, Config{Tank: hugeTank(), Limits: Limits{Wall: time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		defer in.Stop()
		r := in.Ask(context.Background(), obsWithFuel(`{"cmd":"loop"}`))
		if r.Status != protocol.Timeout || !strings.Contains(r.Detail, "backstop of "+want.String()+" of CPU") {
			t.Errorf("reply %+v, want a timeout at %v", r, want)
		}
		if _, ok := threadClock(); ok {
			if cpu, ok := in.guestCPU(); !ok || cpu < want {
				t.Errorf("timed out after %v of the guest's CPU time, want at least %v", cpu, want)
			}
		}
	}
	t.Run("measured", func(t *testing.T) {
		memoryProbe = newScaleProbe(func() float64 { return 2.5 })
		spin(t, 250*time.Millisecond)
	})
	t.Run("capped", func(t *testing.T) {
		memoryProbe = newScaleProbe(func() float64 { return 10 })
		spin(t, 100*time.Millisecond*MaxBackstopScale)
	})
	t.Run("while measuring", func(t *testing.T) {
		release := make(chan struct{})
		memoryProbe = newScaleProbe(func() float64 { <-release; return 1 })
		spin(t, 100*time.Millisecond*MaxBackstopScale)
		close(release)
		<-memoryProbe.ready
		spin(t, 100*time.Millisecond) // measured at 1: the limit itself
	})
	t.Run("an explicit limit is kept", func(t *testing.T) {
		memoryProbe = newScaleProbe(func() float64 { return 3 })
		in, err := testRT.Start(context.Background(), mod, Config{Tank: hugeTank(), Limits: Limits{CPU: 100 * time.Millisecond, Wall: time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		defer in.Stop()
		if r := in.Ask(context.Background(), obsWithFuel(`{"cmd":"loop"}`)); !strings.Contains(r.Detail, "backstop of 100ms of CPU") {
			t.Errorf("reply %+v, want a timeout at the explicit 100ms", r)
		}
		if _, ok := memoryProbe.known(); ok {
			t.Error("an instance with an explicit limit measured the memory")
		}
	})
}
