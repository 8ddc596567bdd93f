package sandbox

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// The third red team's corpus (the tests of this file): attacks written against
// docs/sandbox.md and docs/fuel.md (cost model 4) by someone who wrote
// neither, looking for what the hostile corpus, TestAttackCorpus and
// host_attacks_test.go does not try: the meter's own globals and names, proposals
// it does not meter, memory growth across the surcharge's tiers, host
// calls that touch memory at scattered addresses, answers at the edges of
// the line limit and of UTF-8. Each is refused at the door or plays its
// turns twice with the pinned statuses (runRed2: never timeout, the host's
// CPU time and memory bounded, the same replies both times). The holes it
// found, since fixed, are in hostcall_prices_test.go.

// rt3Seed seeds the red team's shuffles.
const rt3Seed = 0x9e3779b97f4a7c15

// fixedShuffle is a shuffle of 0..n-1 by xorshift from seed, the same on
// every run.
func fixedShuffle(n int, seed uint64) []int32 {
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	x := seed
	for i := n - 1; i > 0; i-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := int(x % uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

const rt3IovAt = 0x200000

// scatteredIovecs: an echo module of pages 64 KiB pages with n one-byte
// iovecs at rt3IovAt, each pointing into a different 4 KiB page, in a
// shuffled order, its byte b (all placed by active data segments, which
// cost the allowance 1 unit per 8 bytes).
func scatteredIovecs(e Echo, n int, b byte) []byte { return scattered(e, n, b, false) }

func scattered(e Echo, n int, b byte, straddle bool) []byte {
	perm := fixedShuffle(e.MinPages*16-1, rt3Seed)
	var segs, iov []byte
	k := 0
	for i := 0; k < n; i++ {
		a := perm[i]*4096 + int32(i%63)*64 + 64
		l := byte(1)
		if straddle {
			a, l = perm[i]*4096+4095, 2
		}
		if a >= rt3IovAt-8192 && a < rt3IovAt+int32(8*n)+8192 {
			continue
		}
		segs = append(append(append(append(segs, 0), I32(a)...), End...), l, b, b)
		segs = segs[:len(segs)-int(2-l)]
		iov = binary.LittleEndian.AppendUint32(iov, uint32(a))
		iov = binary.LittleEndian.AppendUint32(iov, uint32(l))
		k++
	}
	segs = Cat(segs, []byte{0}, I32(rt3IovAt), End, ULEB(uint64(len(iov))), iov)
	return ExtendVec(e.Module(), 11, n+1, segs)
}

// straddleChase is chaseModule with every pointer across a 4 KiB page
// boundary (its first two bytes at the end of one page, the other two at the
// start of the next), so that every load of the chase walks two pages.
func straddleChase(pages int) []byte {
	n := pages*16 - 1
	perm := fixedShuffle(n, rt3Seed)
	addr := func(k int) int32 { return perm[k]*4096 + 4094 }
	return chaseOf(pages, n, addr, 0)
}

// rt3Export adds one export to the echo module.
func rt3Export(e Echo, nm string, kind byte, idx uint64) []byte {
	return ExtendVec(e.Module(), 7, 1, rtExport(nm, kind, idx))
}

// rt3Memory is the echo module with its memory section replaced.
func rt3Memory(content ...byte) []byte {
	return WithSections(Echo{}.Module(), Sec(5, content))
}

// rt3Answer: the Turn writes the bytes as its answer line (newline
// included), from scratch; the echo's own answer then follows as a second
// line, which is dropped.
func rt3Answer(line []byte) []byte {
	var c []byte
	for i, b := range line {
		c = Cat(c, I32(scratch+int32(i)), I32(int32(b)), []byte{store8, 0, 0})
	}
	return Cat(c, iovec(scratch+0x100, scratch, int32(len(line))), wasiCall(FdWrite, 1, scratch+0x100, 1, scratch+0x108))
}

// rt3Line: every ok reply's line is exactly want, byte for byte.
func rt3Line(want []byte) func(rs []protocol.Reply) string {
	return func(rs []protocol.Reply) string {
		for i, r := range rs {
			if r.Status == protocol.OK && string(r.Line) != string(want) {
				return fmt.Sprintf("turn %d: answer of %d bytes %.20q, want %d bytes %.20q", i, len(r.Line), r.Line, len(want), want)
			}
		}
		return ""
	}
}

// rt3LongLine: the Turn answers a line of n bytes of 'a'.
func rt3LongLine(n int32) []byte {
	return Echo{MinPages: 40, Turn: Cat(
		I32(bigAt), I32('a'), I32(n), MemoryFill,
		I32(bigAt+n), I32('\n'), []byte{store8, 0, 0},
		iovec(scratch, bigAt, n+1), wasiCall(FdWrite, 1, scratch, 1, scratch+8))}.Module()
}

// rt3StdinSubs: n poll_oneoff subscriptions at bigAt, all fd_read of stdin
// (wazero keeps one allocation per subscription), polled forever.
func rt3StdinSubs(n int32) []byte {
	out := int32(bigAt) + 48*n
	return Echo{MinPages: 100, TurnLocals: 1, Turn: Cat(
		once(I32(0), Set(0), Loop,
			Get(0), I32(48), []byte{0x6c}, I32(1), []byte{store8, 0}, ULEB(bigAt+8), // the tag: fd_read
			Get(0), I32(1), I32Add, Tee(0), I32(n), []byte{0x49}, BrIf(0), End),
		Forever(wasiCall(PollOneoff, bigAt, out, n, scratch)))}.Module()
}

// The chase of cost model 4 with SIMD loads: v128.load32_zero and
// i32x4.extract_lane instead of i32.load.
func rt3SIMDChase() []byte {
	m := chaseModule(3968, true)
	old := Cat(Get(0), []byte{0x28, 2, 0}, Tee(0))
	neu := Cat(Get(0), []byte{0xfd, 92, 2, 0, 0xfd, 27, 0}, Tee(0))
	i := bytesIndex(m, old)
	if i < 0 {
		panic("chase loop not found")
	}
	// The body grows by 4 bytes: rewrite the Turn function's size.
	return replaceTurn(m, i, old, neu)
}

func bytesIndex(b, sub []byte) int {
	for i := 0; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}

// replaceTurn replaces old at i, inside the code section, with neu, and
// fixes the sizes of the function body and the code section around it.
func replaceTurn(m []byte, i int, old, neu []byte) []byte {
	sec := SectionOf(m, 10)
	n, k := ReadULEB(sec)
	out := Cat(ULEB(n))
	r := sec[k:]
	base := bytesIndex(m, sec)
	pos := base + k
	for j := 0; j < int(n); j++ {
		size, kk := ReadULEB(r)
		body := r[kk : kk+int(size)]
		start := pos + kk
		if i >= start && i < start+int(size) {
			at := i - start
			body = Cat(body[:at], neu, body[at+len(old):])
		}
		out = Cat(out, ULEB(uint64(len(body))), body)
		r = r[kk+int(size):]
		pos = start + int(size)
	}
	return WithSections(m, Sec(10, out))
}

var red3Corpus = []red3Case{
	// The meter's globals (the counter, the stack estimate, the price of
	// a memory access) take the indices after the module's own: code and
	// constant expressions cannot name them, and their export names are
	// the meter's.
	{red2Case: red2Case{name: "global.set of the index the meter's counter takes",
		wasm:   func() []byte { return Echo{Globals: 1, Turn: Cat(I64(1<<62), []byte{0x24, 1})}.Module() },
		refuse: "global 1 does not exist"}},
	{red2Case: red2Case{name: "global.set of the index the price of a memory access takes",
		wasm:   func() []byte { return Echo{Turn: Cat(I64(0), []byte{0x24, 2})}.Module() },
		refuse: "global 2 does not exist"}},
	{red2Case: red2Case{name: "a global initialised from the price's index",
		wasm: func() []byte {
			return WithSections(Echo{}.Module(), Sec(6, Cat(ULEB(1), []byte{i64t, 1, 0x23, 2, 0x0b})))
		},
		refuse: "reads global 2, which does not exist"}},
	{red2Case: red2Case{name: "a global exported as arena_price",
		wasm:   func() []byte { return rt3Export(Echo{Globals: 1}, "arena_price", 3, 0) },
		refuse: `export "arena_price" is not allowed`}, model4: true},
	{red2Case: red2Case{name: "a function exported as arena_price",
		wasm:   func() []byte { return rt3Export(Echo{}, "arena_price", 0, TurnFunc) },
		refuse: `export "arena_price" is not allowed`}, model4: true},
	{red2Case: red2Case{name: "the memory exported as arena_fuel",
		wasm:   func() []byte { return rt3Export(Echo{}, "arena_fuel", 2, 0) },
		refuse: `export "arena_fuel" is not allowed`}},
	{red2Case: red2Case{name: "arena.arena_price imported as a function",
		wasm:   func() []byte { return withImport(Echo{}, "arena", "arena_price", nil, []byte{i64t}) },
		refuse: `the only function "arena" offers is "fuel_left"`}},
	{red2Case: red2Case{name: "the meter's refill imported",
		wasm:   func() []byte { return withImport(Echo{}, "arena_meter", "refill", []byte{i64t, i64t}, []byte{i64t}) },
		refuse: "reserved for the fuel meter"}},
	{red2Case: red2Case{name: "an export named _start that is a global",
		wasm: func() []byte {
			m := Echo{Globals: 1, NoStart: true}.Module()
			return ExtendVec(m, 7, 1, rtExport("_start", 3, 0))
		},
		refuse: `does not export a function named "_start"`}},
	// Proposals the meter does not count.
	{red2Case: red2Case{name: "an atomic load",
		wasm:   func() []byte { return Echo{Turn: Cat(I32(0), []byte{0xfe, 0x10, 2, 0}, Drop)}.Module() },
		refuse: "threads"}},
	{red2Case: red2Case{name: "a load from memory 1",
		wasm:   func() []byte { return Echo{Turn: Cat(I32(0), []byte{0x28, 0x42, 1, 0}, Drop)}.Module() },
		refuse: "multiple memories"}},
	{red2Case: red2Case{name: "memory.copy between memories 0 and 1",
		wasm:   func() []byte { return Echo{Turn: Cat(I32(0), I32(0), I32(1), []byte{0xfc, 10, 1, 0})}.Module() },
		refuse: "multiple memories"}},
	{red2Case: red2Case{name: "a shared memory", wasm: func() []byte { return rt3Memory(1, 3, 2, 2) }, refuse: "threads"}},
	{red2Case: red2Case{name: "a 64-bit memory", wasm: func() []byte { return rt3Memory(1, 4, 2) }, refuse: "memory64"}},
	{red2Case: red2Case{name: "two memories", wasm: func() []byte { return rt3Memory(2, 0, 2, 0, 1) }, refuse: "multiple memories"}},
	{red2Case: red2Case{name: "a try block",
		wasm: func() []byte { return Echo{Turn: []byte{0x06, 0x40, 0x0b}}.Module() }, refuse: "exception handling"}},
	{red2Case: red2Case{name: "a memory of 3,969 pages",
		wasm:   func() []byte { return Echo{MinPages: 3969}.Module() },
		refuse: "is 3969, more than the limit of 3968"}},
	// Memory and the surcharge's tiers.
	{red2Case: red2Case{name: "memory.grow by a page and a load of the new page, across every tier, forever",
		wasm: func() []byte {
			return Echo{Turn: Forever(I32(1), MemoryGrow, I32(16), []byte{0x74}, I32(65532), I32Add, []byte{0x28, 2, 0}, Drop)}.Module()
		},
		want: "fuel fuel fuel fuel", detail: "ran out of fuel"}},
	{red2Case: red2Case{name: "a memory of 248 MiB, memory.copy of 8 bytes between scattered pages, forever",
		wasm: func() []byte {
			// Two pages 120 MiB apart, moved by 4 KiB + 8 every time.
			return Echo{MinPages: 3968, TurnLocals: 1, Turn: Cat(Forever(
				Get(0), I32(4104), I32Add, I32(0x7fffff8), []byte{0x71}, Tee(0), // a = (a + 4104) & (128 MiB - 8)
				Get(0), I32(120<<20), I32Add, I32(8), MemoryCopy))}.Module()
		},
		want: "fuel fuel fuel fuel", detail: "ran out of fuel"}, long: true, model4: true},
	// 63,488 page faults in one turn take 0.23 s of CPU for 2,000,000
	// units (the pages are paid for in start-up, 8,192 a page).
	{red2Case: red2Case{name: "a memory of 248 MiB, a page fault in every page of it in the first turn",
		wasm: func() []byte { return rt3Faults(3968) },
		want: "fuel fuel fuel fuel", detail: "ran out of fuel"}, long: true},
	{red2Case: red2Case{name: "a function of 49,999 v128 locals, called forever",
		wasm: func() []byte {
			return manyFuncs(Echo{Turn: Forever(Call(TurnFunc + 1))}, 1, Cat(ULEB(1), ULEB(49_999), []byte{0x7b}, End))
		},
		want: "fuel fuel fuel fuel", detail: "ran out of fuel"}},
	{red2Case: red2Case{name: "recursion through call_indirect",
		wasm: func() []byte {
			m := Echo{Table: true, TableMin: 1, Turn: Cat(I32(0), []byte{0x11, 1, 0})}.Module()
			return WithSections(m, Sec(9, Cat(ULEB(1), []byte{0, 0x41, 0, 0x0b, 1, TurnFunc})))
		},
		want: "crash crash crash crash", detail: "unreachable", tank: bigTank}},
	// Host calls.
	{red2Case: red2Case{name: "fd_close(1) in start-up",
		wasm: func() []byte {
			m := withImport(Echo{Turn: wasiCall(extra, 1)}, "wasi_snapshot_preview1", "fd_close", []byte{i32t}, []byte{i32t})
			return WithSections(m, Sec(8, ULEB(TurnFunc+1)))
		},
		want: "crash crash crash crash", detail: "without answering"}},
	{red2Case: red2Case{name: "fd_write to a descriptor that does not exist, forever",
		wasm: func() []byte { return Echo{Turn: Forever(wasiCall(FdWrite, 1000, 8, 1, scratch))}.Module() },
		want: "fuel fuel fuel fuel", detail: "ran out of fuel"}, long: true},
	{red2Case: red2Case{name: "clock_time_get of clock 99 into the last bytes of memory",
		wasm: func() []byte {
			return Echo{Turn: storeErrno(Cat(I32(99), I64(-1), I32(2*65536-4), Call(ClockTimeGet)))}.Module()
		},
		want: "ok ok ok ok", check: lineIs("{L")}}, // EINVAL (28)
	{red2Case: red2Case{name: "poll_oneoff of 50,000 subscriptions to stdin, forever",
		wasm: func() []byte { return rt3StdinSubs(50_000) },
		want: "fuel fuel fuel fuel", detail: "ran out of fuel"}},
	{red2Case: red2Case{name: "60,000 one-byte iovecs to stdout, each in another page of 248 MiB, forever",
		wasm: func() []byte {
			return scatteredIovecs(Echo{MinPages: 3968, Turn: Forever(wasiCall(FdWrite, 1, rt3IovAt, 60_000, scratch))}, 60_000, 'x')
		},
		// A turn's 5,000,000 buys 150,000 of them, not the 1 MiB line.
		want: "fuel fuel fuel fuel", detail: "ran out of fuel"}, long: true},
	// Answers at the edges.
	{red2Case: red2Case{name: "an answer of bytes that are not UTF-8",
		wasm: func() []byte { return Echo{Turn: rt3Answer([]byte("\xff\xc3\x00\xed\xa0\x80\n"))}.Module() },
		want: "ok ok ok ok", check: rt3Line([]byte("\xff\xc3\x00\xed\xa0\x80"))}},
	{red2Case: red2Case{name: "an answer cut inside a character",
		wasm: func() []byte { return Echo{Turn: rt3Answer([]byte("{\"m\":\"\xe2\x82\n"))}.Module() },
		want: "ok ok ok ok", check: rt3Line([]byte("{\"m\":\"\xe2\x82"))}},
	{red2Case: red2Case{name: "an answer of exactly 1 MiB",
		wasm: func() []byte { return rt3LongLine(1 << 20) },
		want: "ok ok ok ok", check: rt3Line(bytesOf('a', 1<<20))}},
	{red2Case: red2Case{name: "an answer of 1 MiB and 1 byte",
		wasm: func() []byte { return rt3LongLine(1<<20 + 1) },
		want: "malformed malformed malformed malformed", detail: "longer than"}},
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// Attacks that spend the whole start-up allowance on work near the dearest
// the prices were set for: seconds of CPU a run. They, and the cases of
// red3Corpus marked long (host work the race detector slows tenfold), are
// not run with -short (the race run).
var red3Long = []red3Case{
	// Frames of 80 and 160 KB of live values, recursing: the host's memory
	// does not grow. (They ran through the start-up allowance while the
	// meter's stack estimate left out the values; it counts them now, and
	// they reach its 16 MiB bound within about 100 frames.)
	{red2Case: red2Case{name: "10,000 i32 loads live across a recursive call, in start-up",
		wasm: func() []byte { return rt3Live(10_000, false) },
		obs:  1, want: "crash", detail: "unreachable", cpu: 4 * time.Second, memory: 64 << 20}, long: true},
	{red2Case: red2Case{name: "10,000 v128 loads live across a recursive call, in start-up",
		wasm: func() []byte { return rt3Live(10_000, true) },
		obs:  1, want: "crash", detail: "unreachable", cpu: 4 * time.Second, memory: 64 << 20}, long: true},
	{red2Case: red2Case{name: "pointer chase through 248 MiB with SIMD loads, in start-up",
		wasm: rt3SIMDChase,
		obs:  1, want: "fuel", detail: "start-up allowance", cpu: 4 * time.Second}, long: true, model4: true},
}

// rt3Live: the Turn loads k values (i32, or v128), calls itself, and adds
// them up after the call returns, so that all k are live across the call
// (TestAttackCorpus's cases drop them, which lets the compiler drop the loads).
func rt3Live(k int, v128 bool) []byte {
	var push, sum []byte
	for i := 0; i < k; i++ {
		if v128 {
			push = Cat(push, I32(int32(16*i%65536)), []byte{0xfd, 0, 4, 0}) // v128.load
			if i > 0 {
				sum = Cat(sum, []byte{0xfd, 174, 1}) // i32x4.add
			}
		} else {
			push = Cat(push, I32(int32(4*i%65536)), []byte{0x28, 2, 0})
			if i > 0 {
				sum = Cat(sum, I32Add)
			}
		}
	}
	return inStartup(Echo{Turn: Cat(push, Call(TurnFunc), sum, Drop)}.Module())
}

// red3Case is a case of runRed2, which may be long: seconds of CPU a run,
// or host work the race detector slows tenfold; not run with -short (the
// race run).
type red3Case struct {
	red2Case
	long bool
	// model4: needs cost model 4 (the surcharge on memory accesses, the
	// arena_price global it reserves).
	model4 bool
}

func TestMeterAttackCorpus(t *testing.T) {
	for _, c := range append(red3Corpus, red3Long...) {
		t.Run(c.name, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("seconds of CPU a run: not in -short")
			}
			if c.model4 {
				skipWithoutSurcharge(t)
			}
			runRed2(t, c.red2Case)
		})
	}
}

// skipWithoutSurcharge skips a case of cost model 4 under an earlier one,
// which does not charge memory accesses by the memory's size (a pointer
// chase is then the known hole TestHostAttackCorpus keeps skipped) and does
// not reserve the name arena_price.
func skipWithoutSurcharge(t *testing.T) {
	if meter.CostModel < 4 {
		t.Skipf("cost model %d: no surcharge on memory accesses (the pointer chase is the known hole of TestHostAttackCorpus), no arena_price", meter.CostModel)
	}
}

// TestStraddleChase: the pointer chase of cost model 4 with every
// pointer across two pages, so that every load walks two, on a full tank of
// 20,000,000: the second walk finds the page tables in the caches, and it
// costs about what the plain chase does (0.54-0.68 s of CPU at a load of 6,
// the plain chase 0.54 s beside it); it stays under the backstop.
func TestStraddleChase(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of CPU")
	}
	skipWithoutSurcharge(t)
	mod := compileBytes(t, straddleChase(3968))
	const tank = 20_000_000
	in, err := testRT.Start(context.Background(), mod, Config{Tank: &Tank{PerTurn: tank, Cap: tank}})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Stop()
	c0 := processCPU()
	r := in.Ask(context.Background(), obsWithFuel(`{}`))
	c := processCPU() - c0
	t.Logf("start-up %d, then %s %d: %v of CPU", in.StartupFuel(), r.Status, r.Fuel, c)
	if r.Status != protocol.Fuel || r.Fuel > tank || r.Fuel < tank-30_000 {
		t.Errorf("reply %+v, want fuel, having spent its tank but the reserve", r)
	}
	if c > memoryBound(t, 2*time.Second*raceScale) {
		t.Errorf("20,000,000 fuel of straddling chase took %v of CPU", c)
	}
}

// rt3Faults: a memory of pages pages (paid from the start-up allowance,
// untouched); the first turn stores a byte in every 4 KiB page from the top
// down, each a page fault, then spins.
func rt3Faults(pages int32) []byte {
	e := Echo{MinPages: int(pages), TurnLocals: 1, Turn: Cat(
		once(I32(pages*65536), Set(0), Loop,
			Get(0), I32(4096), I32Sub, Tee(0), I32(1), []byte{store8, 0, 0},
			Get(0), I32(bigAt+65536), []byte{0x4b}, BrIf(0), End),
		Forever())}
	return e.Module()
}
