package sandbox

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// The red team's corpus: attacks written against the documented limits and
// cost model (docs/sandbox.md, docs/fuel.md) by someone who did not write the
// sandbox, looking for what TestHostileCorpus, TestHostile and TestDoorLimits
// do not try. Each module is either refused at the door or plays its turns
// twice with the pinned statuses, never timeout, within a bound of wall-clock
// time and host memory.

// nameSection is a custom "name" section with one subsection.
func nameSection(sub byte, content []byte) Section {
	return Sec(0, Cat(Name("name"), []byte{sub}, ULEB(uint64(len(content))), content))
}

type redCase struct {
	name   string
	wasm   func() []byte
	refuse string // a part of the refusal; "" for a module that must run
	orWant string // with refuse: the statuses also accepted when the module compiles within the limits (a limit on the compiler's CPU time, which a fast machine may not reach)
	obs    int    // turns to play (default 4)
	want   string // statuses
	detail string // in the first failure's detail
	tank   func() *Tank
	long   bool // spends the compiler child's whole CPU time or start-up allowance: not with -short
	// hostHeavy: most of its fuel buys work in the host's Go code, which the
	// race detector slows several times, so that the backstop fires: not in
	// a race build.
	hostHeavy bool
}

var redCorpus = []redCase{
	{name: "name section: 16M local names of one function (decoder allocation bomb)",
		wasm: func() []byte {
			n := 15 << 20
			c := Cat(ULEB(1), ULEB(7), ULEB(uint64(n)), Repeat([]byte{0, 0}, n))
			return WithSections(Echo{}.Module(), nameSection(2, c))
		}, want: "ok ok ok ok"},
	{name: "name section: 16M function names",
		wasm: func() []byte {
			n := 15 << 20
			c := Cat(ULEB(uint64(n)), Repeat([]byte{0, 0}, n))
			return WithSections(Echo{}.Module(), nameSection(1, c))
		}, want: "ok ok ok ok"},
	{name: "10M empty custom sections", hostHeavy: true,
		wasm: func() []byte {
			m := Echo{}.Module()
			return append(m, Repeat([]byte{0, 1, 0}, 10<<20)...)
		}, want: "ok ok ok ok"},
	{name: "a start function that loops forever",
		wasm: func() []byte {
			return WithSections(Echo{Turn: Forever()}.Module(), Sec(8, ULEB(TurnFunc)))
		}, want: "fuel fuel fuel fuel", detail: "start-up allowance"},
	{name: "a start function that reads stdin",
		wasm: func() []byte {
			// The start function takes the first observation, so _start's
			// read is a second read without an answer.
			return WithSections(Echo{Turn: wasiCall(FdRead, 0, 0, 1, 20)}.Module(), Sec(8, ULEB(TurnFunc)))
		}, want: "crash crash crash crash", detail: "without answering"},
	{name: "a start function that writes an answer",
		wasm: func() []byte {
			return WithSections(Echo{Turn: wasiCall(FdWrite, 1, 8, 1, 24)}.Module(), Sec(8, ULEB(TurnFunc)))
		}, want: "ok ok ok ok"},
	{name: "poll_oneoff on stdin and a clock of an hour, every turn",
		wasm: func() []byte {
			// Two subscriptions at scratch: fd_read of fd 0, and a relative clock of 3600 s.
			sub1 := Cat(I32(scratch+8), I32(1), []byte{0x3a, 0, 0}, I32(scratch+16), I32(0), Store(0))       // tag 1 (fd_read) at +8, fd 0 at +16
			sub2 := Cat(I32(scratch+48+8), I32(0), []byte{0x3a, 0, 0}, I32(scratch+48+16), I32(0), Store(0), // clock id 0
				I32(scratch+48+24), []byte{0x42, 0x80, 0xe0, 0xe5, 0xa2, 0xa3, 0x68}, []byte{0x37, 3, 0}) // timeout (i64.store)
			return Echo{Turn: Cat(sub1, sub2, wasiCall(PollOneoff, scratch, scratch+4096, 2, scratch+8192))}.Module()
		}, want: "ok ok ok ok"},
	{name: "operand stack of 100,000 values, recursing",
		wasm: func() []byte {
			// Constants need no stack: the compiler rematerialises them.
			return Echo{Turn: Cat(Repeat(I32(0), 100_000), Call(TurnFunc), Repeat(Drop, 100_000))}.Module()
		}, want: "fuel fuel fuel fuel", tank: bigTank},
	{name: "operand stack of 1,000 values, recursing in the start function",
		wasm: func() []byte {
			// About 1,000 units a frame: the meter's stack bound comes
			// before the allowance runs out.
			return WithSections(Echo{Turn: Cat(Repeat(I32(0), 1000), Call(TurnFunc), Repeat(Drop, 1000))}.Module(), Sec(8, ULEB(TurnFunc)))
		}, want: "crash crash crash crash", detail: "unreachable"},
	{name: "1,000 loaded values live across a recursive call, in the start function",
		wasm: func() []byte {
			var push []byte
			for i := 0; i < 1000; i++ {
				push = Cat(push, I32(int32(4*i)), []byte{0x28, 2, 0})
			}
			return WithSections(Echo{Turn: Cat(push, Call(TurnFunc), Repeat(Drop, 1000))}.Module(), Sec(8, ULEB(TurnFunc)))
		}, want: "crash crash crash crash", detail: "unreachable"},
	{name: "10,000 loaded values live across a recursive call",
		wasm: func() []byte {
			var push []byte
			for i := 0; i < 10000; i++ {
				push = Cat(push, I32(int32(4*i)), []byte{0x28, 2, 0})
			}
			return Echo{Turn: Cat(push, Call(TurnFunc), Repeat(Drop, 10000))}.Module()
		}, want: "crash crash crash crash", detail: "unreachable"},
	{name: "operand stack of 1,000 values, recursing",
		wasm: func() []byte {
			return Echo{Turn: Cat(Repeat(I32(0), 1000), Call(TurnFunc), Repeat(Drop, 1000))}.Module()
		}, want: "crash crash crash crash", tank: bigTank},
}

func rtImport(mod, nm string, kind byte, desc ...byte) []byte {
	return Cat(Name(mod), Name(nm), []byte{kind}, desc)
}

func rtExport(nm string, kind byte, idx uint64) []byte {
	return Cat(Name(nm), []byte{kind}, ULEB(idx))
}

// manyFuncs adds n functions of type () -> () with the given body (locals
// declarations, code and end, without the size) to the echo module.
func manyFuncs(e Echo, n int, body []byte) []byte {
	m := e.Module()
	m = ExtendVec(m, 3, n, Repeat([]byte{1}, n))
	return ExtendVec(m, 10, n, Repeat(Cat(ULEB(uint64(len(body))), body), n))
}

// iovecsAt is where withIovecs puts its iovecs.
const iovecsAt = 0x200000

// withIovecs adds to the echo module an active data segment of n iovecs at
// iovecsAt, each of the one byte at bigAt (a '{').
func withIovecs(e Echo, n int) []byte {
	iov := binary.LittleEndian.AppendUint32(nil, bigAt)
	iov = binary.LittleEndian.AppendUint32(iov, 1)
	seg := Cat([]byte{0}, I32(iovecsAt), End, ULEB(uint64(8*n)), Repeat(iov, n))
	brace := Cat([]byte{0}, I32(bigAt), End, ULEB(1), []byte("{"))
	return ExtendVec(e.Module(), 11, 2, Cat(seg, brace))
}

var redCorpus2 = []redCase{
	{name: "2,000 functions of 49,999 locals", wasm: func() []byte {
		return manyFuncs(Echo{}, 2_000, Cat([]byte{1}, ULEB(49_999), []byte{0x7f, 0x0b}))
	}, refuse: "the number of locals of all functions together (parameters included) is 4049919, more than the limit of 4000000"},
	{name: "79 functions of 49,999 locals", wasm: func() []byte {
		return manyFuncs(Echo{}, 79, Cat([]byte{1}, ULEB(49_999), []byte{0x7f, 0x0b}))
	}, want: "ok ok ok ok"},
	{name: "2,000 functions of blocks nested 1,024 deep", wasm: func() []byte {
		// Every function is within the limits; wazero's compiler takes
		// its child's whole CPU time over them.
		return manyFuncs(Echo{}, 2_000, Cat([]byte{0}, Repeat(Block, 1023), Repeat(End, 1023), End))
	}, refuse: "compiling it takes more than", orWant: "ok ok ok ok", long: true},
	{name: "16 functions of 512 KiB of straight-line code", wasm: func() []byte {
		return manyFuncs(Echo{}, 15, Cat([]byte{0}, Repeat(Cat(I32(0), Drop), 170_000), End))
	}, want: "ok ok ok ok"},
	{name: "a million one-byte iovecs to stdout, forever", hostHeavy: true, wasm: func() []byte {
		return withIovecs(Echo{MinPages: 300, Turn: Forever(wasiCall(FdWrite, 1, iovecsAt, 1<<20, scratch))}, 1<<20)
	}, want: "fuel fuel fuel fuel"},
	{name: "a million one-byte iovecs to stderr, forever", hostHeavy: true, wasm: func() []byte {
		return withIovecs(Echo{MinPages: 300, Turn: Forever(wasiCall(FdWrite, 2, iovecsAt, 1<<20, scratch))}, 1<<20)
	}, want: "fuel fuel fuel fuel"},
	{name: "a million one-byte iovecs to read stdin into", wasm: func() []byte {
		// The host takes 1,024 iovecs of a call (meter.HostMaxIovecs): the
		// read is short, paid for those alone, and the bot, which then
		// answers nothing and reads again, crashes.
		return withIovecs(Echo{MinPages: 300, Turn: wasiCall(FdRead, 0, iovecsAt, 1<<20, scratch)}, 1<<20)
	}, want: "crash crash crash crash", detail: "read stdin again without answering"},
	{name: "10,000 exports of 3,000-byte names", wasm: func() []byte {
		var exps []byte
		for i := 0; i < 9_990; i++ {
			exps = append(append(exps, Name(fmt.Sprintf("%03000d", i))...), 2, 0)
		}
		return ExtendVec(Echo{}.Module(), 7, 9_990, exps)
	}, want: "ok ok ok ok"},
	{name: "arena.fuel_left of the wrong type", wasm: func() []byte { return Echo{Import: "arena.fuel_left"}.Module() },
		refuse: "fuel_left"},
	{name: "an unknown arena function", wasm: func() []byte { return Echo{Import: "arena.fuel_set"}.Module() },
		refuse: "fuel_set"},
	{name: "a memory imported from the WASI module", wasm: func() []byte {
		return ExtendVec(Echo{}.Module(), 2, 1, rtImport("wasi_snapshot_preview1", "memory", 2, 0, 1))
	}, refuse: "memory"},
	{name: "a table imported from arena", wasm: func() []byte {
		return ExtendVec(Echo{}.Module(), 2, 1, rtImport("arena", "table", 1, 0x70, 0, 1))
	}, refuse: "table"},
	{name: "a global imported from arena", wasm: func() []byte {
		return ExtendVec(Echo{}.Module(), 2, 1, rtImport("arena", "fuel", 3, 0x7e, 1))
	}, refuse: "fuel"},
	{name: "the meter's own counter exported under its reserved name", wasm: func() []byte {
		return ExtendVec(Echo{}.Module(), 7, 1, rtExport("arena_fuel", 2, 0))
	}, refuse: "arena_fuel"},
	{name: "_start exported twice", wasm: func() []byte {
		return ExtendVec(Echo{}.Module(), 7, 1, rtExport("_start", 0, 5))
	}, refuse: "_start"},
	{name: "memory exported as a function's name", wasm: func() []byte {
		return WithSections(Echo{}.Module(), Sec(7, Cat(ULEB(3), rtExport("memory", 0, 5), rtExport("_start", 0, 5), rtExport("mem", 2, 0))))
	}, refuse: "memory"},
	{name: "100 tables, each grown by a million elements, forever", wasm: func() []byte {
		var tables, grow []byte
		for i := 0; i < 100; i++ {
			tables = Cat(tables, []byte{0x70, 0, 0})
			grow = Cat(grow, RefNull, I32(1<<20), []byte{0xfc, 15}, ULEB(uint64(i)), Drop)
		}
		return WithSections(Echo{Turn: Forever(grow)}.Module(), Sec(4, Cat(ULEB(100), tables)))
	}, want: "fuel fuel fuel fuel"},
	{name: "100 tables of 10,000 elements at the start, grown to their maximum once", wasm: func() []byte {
		var tables, grow []byte
		for i := 0; i < 100; i++ {
			tables = Cat(tables, []byte{0x70, 0}, ULEB(10_000))
			grow = Cat(grow, RefNull, I32(1<<20), []byte{0xfc, 15}, ULEB(uint64(i)), Drop)
		}
		return WithSections(Echo{Turn: grow}.Module(), Sec(4, Cat(ULEB(100), tables)))
	}, want: "fuel fuel fuel fuel"}, // each grow is charged for the most that could succeed
	{name: "an active element segment of a million function indices", wasm: func() []byte {
		seg := Cat([]byte{0, 0x41, 0, 0x0b}, ULEB(1<<20), Repeat([]byte{5}, 1<<20))
		return WithSections(Echo{Table: true, TableMin: 1 << 20}.Module(), Sec(9, Cat(ULEB(1), seg)))
	}, refuse: "the number of elements in element segments is 1048576, more than the limit of 131072"},
	{name: "active element segments of ref.func expressions at the limit", wasm: func() []byte {
		n := meter.MaxSegmentElements
		seg := Cat([]byte{4, 0x41, 0, 0x0b}, ULEB(uint64(n)), Repeat([]byte{0xd2, 5, 0x0b}, n))
		return WithSections(Echo{Table: true, TableMin: 1 << 20}.Module(), Sec(9, Cat(ULEB(1), seg)))
	}, want: "ok ok ok ok"},
	{name: "a passive segment of ref.func expressions at the limit, table.init forever", wasm: func() []byte {
		n := meter.MaxSegmentElements
		seg := Cat([]byte{5, 0x70}, ULEB(uint64(n)), Repeat([]byte{0xd2, 5, 0x0b}, n))
		m := Echo{Table: true, TableMin: 1 << 20, Turn: Forever(I32(0), I32(0), I32(int32(n)), []byte{0xfc, 12, 0, 0})}.Module()
		return WithSections(m, Sec(9, Cat(ULEB(1), seg)))
	}, obs: 6, want: "fuel fuel fuel fuel retired retired"},
	{name: "100,000 empty passive element segments", wasm: func() []byte {
		return Echo{Table: true, ElemSegs: meter.MaxElemSegments}.Module()
	}, want: "ok ok ok ok"},
	{name: "a passive data segment of 30 MB, memory.init of all of it forever", wasm: func() []byte {
		n := 30 << 20
		m := Echo{MinPages: 1000, DataSegs: 1, Turn: Forever(I32(bigAt), I32(0), I32(int32(n)), []byte{0xfc, 8, 1, 0})}.Module()
		// Make the passive segment (the third) 30 MB long.
		d := SectionOf(m, 11)
		d = Cat(d[:len(d)-3], []byte{1}, ULEB(uint64(n)), make([]byte, n))
		return WithSections(m, Sec(11, d))
	}, want: "fuel fuel fuel fuel"},
	{name: "memory.init after data.drop", wasm: func() []byte {
		return Echo{DataSegs: 1, Turn: Cat([]byte{0xfc, 9, 1}, I32(0), I32(0), I32(1), []byte{0xfc, 8, 1, 0})}.Module()
	}, want: "crash crash crash crash", detail: "out of bounds"},
	{name: "fd_write of a million empty iovecs, forever", wasm: func() []byte {
		return Echo{MinPages: 200, Turn: Forever(wasiCall(FdWrite, 1, bigAt, 1<<20, scratch))}.Module()
	}, want: "fuel fuel fuel fuel"},
	{name: "a memory of 248 MiB, idle",
		wasm: func() []byte { return Echo{MinPages: 3968}.Module() }, want: "ok ok ok ok"},
	{name: "random_get of 1 MiB in start-up", wasm: func() []byte {
		return WithSections(Echo{MinPages: 100, Turn: wasiCall(RandomGet, bigAt, 1<<20)}.Module(), Sec(8, ULEB(TurnFunc)))
	}, want: "ok ok ok ok"},
	{name: "random_get of 1 MiB in every turn", wasm: func() []byte {
		return Echo{MinPages: 100, Turn: wasiCall(RandomGet, bigAt, 1<<20)}.Module()
	}, want: "ok ok ok ok"},
	{name: "random_get of 100 MiB in start-up", hostHeavy: true, wasm: func() []byte {
		return WithSections(Echo{MinPages: 3968, Turn: wasiCall(RandomGet, bigAt, 100<<20)}.Module(), Sec(8, ULEB(TurnFunc)))
	}, want: "fuel fuel fuel fuel", detail: "ran out of fuel"}, // the start-up fits; the same call in a turn (26M) does not
	// At a load average of 20 on 2 cores, 240 MiB took 0.5-0.6 s of the
	// start-up (fresh pages; a plain loop of 100M took 0.45-0.6 s then),
	// and once reached the backstop with another match running beside it:
	// the prices hold for two matches a core, not ten.
	{name: "random_get of 240 MiB in start-up", long: true, wasm: func() []byte {
		// 3,968 pages (32.5M) and 240 MiB (62.9M) fit the allowance; the same call in a turn does not.
		return WithSections(Echo{MinPages: 3968, Turn: wasiCall(RandomGet, bigAt, 240<<20)}.Module(), Sec(8, ULEB(TurnFunc)))
	}, want: "fuel fuel fuel fuel", detail: "ran out of fuel"},
	{name: "64 MiB to stdout without a newline, forever, in start-up", hostHeavy: true, wasm: func() []byte {
		// iovec {0, 64 MiB} at scratch
		iov := Cat(I32(scratch), I32(0), Store(0), I32(scratch+4), I32(64<<20), Store(0))
		return WithSections(Echo{MinPages: 1100, Turn: Cat(iov, Forever(wasiCall(FdWrite, 1, scratch, 1, scratch+8)))}.Module(), Sec(8, ULEB(TurnFunc)))
	}, want: "fuel fuel fuel fuel", detail: "start-up allowance"},
	{name: "64 MiB to stdout without a newline, forever, in a turn", wasm: func() []byte {
		iov := Cat(I32(scratch), I32(0), Store(0), I32(scratch+4), I32(64<<20), Store(0))
		iov = Cat(I32(scratch), I32(bigAt), Store(0), I32(scratch+4), I32(64<<20), Store(0))
		return Echo{MinPages: 1100, Turn: Cat(iov, Forever(wasiCall(FdWrite, 1, scratch, 1, scratch+8)))}.Module()
	}, want: "malformed malformed malformed malformed", detail: "longer than"},
	{name: "two answers every turn", wasm: func() []byte {
		return Echo{Turn: wasiCall(FdWrite, 1, 8, 1, 24)}.Module()
	}, want: "ok ok ok ok"},
	{name: "10,000 types of 3,000 parameters", wasm: func() []byte {
		ty := Cat([]byte{0x60}, ULEB(3000), Repeat([]byte{0x7f}, 3000), []byte{0})
		return ExtendVec(Echo{}.Module(), 1, 9_990, Repeat(ty, 9_990))
	}, refuse: "the number of parameters or results of function type 4 is 3000, more than the limit of 1000"},
	{name: "100,000 parameters in types of 1,000", wasm: func() []byte {
		ty := Cat([]byte{0x60}, ULEB(1000), Repeat([]byte{0x7f}, 1000), []byte{0})
		return ExtendVec(Echo{}.Module(), 1, 100, Repeat(ty, 100))
	}, refuse: "the number of parameters and results of all function types together is 100012, more than the limit of 100000"},
	{name: "99,000 parameters in types of 1,000", wasm: func() []byte {
		ty := Cat([]byte{0x60}, ULEB(1000), Repeat([]byte{0x7f}, 1000), []byte{0})
		return ExtendVec(Echo{}.Module(), 1, 99, Repeat(ty, 99))
	}, want: "ok ok ok ok"},
	{name: "one type of a million results", wasm: func() []byte {
		ty := Cat([]byte{0x60, 0}, ULEB(1<<20), Repeat([]byte{0x7f}, 1<<20))
		return ExtendVec(Echo{}.Module(), 1, 1, ty)
	}, refuse: "is 1048576, more than the limit of 1000"},
}

// One-byte iovecs: fd_write calls the host's writer once per iovec, about
// 80 ns each on this machine. At meter.HostIovecPrice 4 the 100,000,000
// start-up allowance bought some 25 million of them, 2 s and more, and these
// modules ended in timeout; at 32 (cost model 3) it buys about 3 million.
var redIovecStartup = []redCase{
	{name: "a million one-byte iovecs to stderr, forever, in start-up", hostHeavy: true, wasm: func() []byte {
		return WithSections(withIovecs(Echo{MinPages: 300, Turn: Forever(wasiCall(FdWrite, 2, iovecsAt, 1<<20, scratch))}, 1<<20), Sec(8, ULEB(TurnFunc)))
	}, want: "fuel fuel fuel fuel", detail: "start-up allowance"},
	{name: "a million one-byte iovecs to stdout, forever, in start-up", hostHeavy: true, wasm: func() []byte {
		return WithSections(withIovecs(Echo{MinPages: 300, Turn: Forever(wasiCall(FdWrite, 1, iovecsAt, 1<<20, scratch))}, 1<<20), Sec(8, ULEB(TurnFunc)))
	}, want: "fuel fuel fuel fuel", detail: "start-up allowance"},
}

func TestIovecStartupAttack(t *testing.T) {
	for _, c := range redIovecStartup {
		t.Run(c.name, func(t *testing.T) { runRedCase(t, c) })
	}
}

func TestAttackCorpus(t *testing.T) {
	for _, c := range append(redCorpus, redCorpus2...) {
		t.Run(c.name, func(t *testing.T) { runRedCase(t, c) })
	}
}

func runRedCase(t *testing.T, c redCase) {
	if c.hostHeavy && raceScale > 1 {
		t.Skip("host work under the race detector reaches the backstop")
	}
	if c.long && testing.Short() {
		t.Skip("long: spends the compiler child's whole CPU time, or the whole start-up allowance in host work")
	}
	{
		{
			wasm := c.wasm()
			var first []protocol.Reply
			for run := 0; run < 2; run++ {
				start := time.Now()
				var rs []protocol.Reply
				var err error
				grew := peakRSS(func() {
					var m *Module
					// At the door, as an upload: the compiler's child
					// gets the upload's CPU limit.
					m, err = testRT.CompileWith(context.Background(), wasm, CompileOptions{Upload: true})
					if err != nil {
						return
					}
					tank := c.tank
					if tank == nil {
						tank = protocolTank
					}
					n := c.obs
					if n == 0 {
						n = 4
					}
					rs = play(t, supervised(m, tank, &bot.Log{}), repeat(`{"x":1}`, n)...)
				})
				wall := time.Since(start)
				t.Logf("run %d: %d bytes, %v, host +%d MiB, err %v, %q %+v", run, len(wasm), wall, grew>>20, err, statuses(rs), trimReplies(rs))
				if c.refuse != "" && err == nil && c.orWant != "" {
					// A machine fast enough compiles it within the limit.
					if got := statuses(rs); got != c.orWant {
						t.Errorf("compiled within the limit: statuses %q, want %q", got, c.orWant)
					}
				} else if c.refuse != "" {
					if err == nil || !IsRefused(err) || !strings.Contains(err.Error(), c.refuse) {
						t.Fatalf("err = %v, want a refusal containing %q", err, c.refuse)
					}
				} else if err != nil {
					t.Fatalf("compile: %v", err)
				} else if got := statuses(rs); got != c.want {
					t.Errorf("statuses %q, want %q", got, c.want)
				}
				for i, r := range rs {
					if r.Status == protocol.Timeout {
						t.Errorf("turn %d: timeout", i)
					}
				}
				if c.detail != "" && len(rs) > 0 && !strings.Contains(rs[0].Detail, c.detail) {
					t.Errorf("detail %q, want it to contain %q", rs[0].Detail, c.detail)
				}
				if run == 1 && c.refuse != "" && wall > time.Second*raceScale {
					t.Errorf("offered again, the refused module took %v: the refusal is not remembered", wall)
				}
				if wall > 10*time.Second*raceScale && !c.long {
					t.Errorf("took %v", wall)
				}
				if grew > hostMemoryLimit(corpusMemory) {
					t.Errorf("the host's memory grew by %d MiB", grew>>20)
				}
				if run == 0 {
					first = rs
				} else if !sameReplies(first, rs) {
					t.Errorf("a second run differs:\n%+v\n%+v", first, rs)
				}
			}
		}
	}
}

func trimReplies(rs []protocol.Reply) []string {
	var out []string
	for _, r := range rs {
		l := string(r.Line)
		if len(l) > 40 {
			l = l[:40] + "..."
		}
		out = append(out, fmt.Sprintf("%s/%s/%s/%d", r.Status, l, r.Detail, r.Fuel))
	}
	return out
}
