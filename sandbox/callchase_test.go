package sandbox

import (
	"fmt"
	"testing"

	"github.com/arenabots/arena/sandbox/meter"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// A call is a jump into a function's machine code, and call_indirect a
// load from a table first. Like a load (BenchmarkChase), it takes a
// nanosecond when the code and the table's entry are in the host's caches
// and a hundred when they are not: a bot with many functions, or with a
// large table, can call them in a scattered order so that every call misses.
// BenchmarkCallChase measures the worst CPU time of such a call for modules
// of each shape (two chases beside two plain loops, as BenchmarkCalibrate),
// from which the call surcharges of the cost model are set (docs/fuel.md,
// "Calls (cost model 5)"):
//
//	nice -n -5 go test -run XXX -bench CallChase -benchtime=2x ./sandbox/

// scatterCalls is the echo module with n functions of type () -> i32, each
// padded with pad never-run increments of a memory word (about 20 bytes of
// machine code each, so that the functions spread over more code), and a
// Turn that calls all of them forever, directly, in a scattered order.
func scatterCalls(n, pad int) []byte {
	perm := fixedShuffle(n, rt3Seed)
	const first = TurnFunc + 1
	var calls []byte
	for k := 0; k < n; k++ {
		calls = append(append(calls, Call(uint32(first+int(perm[k])))...), Drop...)
	}
	m := Echo{Turn: Forever(calls)}.Module()
	m = ExtendVec(m, 1, 1, []byte{0x60, 0, 1, i32t})
	m = ExtendVec(m, 3, n, Repeat([]byte{4}, n))
	var padding []byte
	if pad > 0 {
		incr := Cat(I32(scratch), I32(scratch), []byte{0x28, 2, 0}, I32(1), I32Add, Store(0)) // i32.load
		padding = Cat(I32(0), If, Repeat(incr, pad), End)
	}
	var bodies []byte
	for k := 0; k < n; k++ {
		b := Cat([]byte{0}, padding, I32(int32(k)), End)
		bodies = append(append(bodies, ULEB(uint64(len(b)))...), b...)
	}
	return ExtendVec(m, 10, n, bodies)
}

// chaseTable is the echo module with n functions of type () -> i32 placed
// at scattered indices of a table of size elements, each returning the
// index of the next one, and a Turn that follows them with call_indirect
// forever: every hop a load from a scattered place of the table and a call
// into a different function's machine code.
func chaseTable(n, size int) []byte {
	perm := fixedShuffle(size, rt3Seed)
	const first = TurnFunc + 1 // the first added function
	m := Echo{Table: true, TableMin: uint32(size), TurnLocals: 1, Turn: Cat(
		I32(perm[0]), Set(0), Loop, Get(0), []byte{0x11, 4, 0}, Set(0), Br(0), End)}.Module()
	m = ExtendVec(m, 1, 1, []byte{0x60, 0, 1, i32t})
	m = ExtendVec(m, 3, n, Repeat([]byte{4}, n))
	var bodies, segs []byte
	for k := 0; k < n; k++ {
		b := Cat([]byte{0}, I32(perm[(k+1)%n]), End)
		bodies = append(append(bodies, ULEB(uint64(len(b)))...), b...)
		segs = append(append(append(segs, 0), I32(perm[k])...), End...)
		segs = append(append(segs, 1), ULEB(uint64(first+k))...)
	}
	m = ExtendVec(m, 10, n, bodies)
	return WithSections(m, Sec(9, Cat(ULEB(uint64(n)), segs)))
}

// tableSlots is the echo module with a table of size elements, every one
// holding the same function, which maps an index to a scattered next one
// (i * 0x9e3779b1 + 1, within the table), and a Turn that fills the table,
// then follows that function's indices with call_indirect forever: every hop
// a load from a scattered place of the table, into the same code.
func tableSlots(size int) []byte {
	const f = TurnFunc + 1
	hop := Cat(Get(0), Get(0), []byte{0x11, 4, 0}, Set(0))
	fill := Cat(I32(1), I32(0), []byte{0x25, 0}, I32(int32(size-1)), TableFill) // table.get 0
	m := Echo{Table: true, TableMin: uint32(size), TurnLocals: 1, Turn: Cat(fill, Forever(hop))}.Module()
	m = ExtendVec(m, 1, 1, []byte{0x60, 1, i32t, 1, i32t})
	m = ExtendVec(m, 3, 1, []byte{4})
	body := Cat([]byte{0}, Get(0), I32(-0x61c88647), []byte{0x6c}, I32(1), I32Add, I32(int32(size-1)), []byte{0x71}, End) // i32.mul, i32.and
	m = ExtendVec(m, 10, 1, Cat(ULEB(uint64(len(body))), body))
	return WithSections(m, Sec(9, Cat(ULEB(1), []byte{0}, I32(0), End, ULEB(1), ULEB(f))))
}

// branchScatter is the echo module whose Turn is a loop around n nested
// blocks and a br_table that jumps, by a hash of a running state, to the
// end of one of them, where the state is updated (after pad never-run
// increments of a memory word, so that the n targets spread over the
// code) before the loop goes round: every hop a jump to a scattered place
// of one function's code. shift must be 32 - log2(n).
func branchScatter(n, pad int, shift int32) []byte {
	incr := Cat(I32(scratch), I32(scratch), []byte{0x28, 2, 0}, I32(1), I32Add, Store(0))
	padding := Cat(I32(0), If, Repeat(incr, pad), End)
	dispatch := Cat(Get(0), I32(-0x61c88647), []byte{0x6c}, I32(shift), []byte{0x76}, []byte{0x0e}, ULEB(uint64(n)))
	for k := 0; k < n; k++ {
		dispatch = append(dispatch, ULEB(uint64(k))...)
	}
	dispatch = append(dispatch, 0)
	code := Cat(Loop, Repeat(Block, n), dispatch)
	for k := 0; k < n; k++ {
		code = Cat(code, End, padding, Get(0), I32(int32(2*k+1)), I32Add, Set(0), Br(uint32(n-1-k)))
	}
	return Echo{TurnLocals: 1, Turn: Cat(code, End)}.Module()
}

func BenchmarkCallChase(b *testing.B) {
	if _, ok := threadClock(); !ok {
		b.Skip("the guest's CPU time cannot be read here")
	}
	plain := compileBytes(b, calibration[0].wasm())
	// A chase's hop is units of plain fuel, one call, and for call_indirect
	// one access to a memory of 1 page and tables of tableSize elements.
	type chase struct {
		name             string
		wasm             func() []byte
		units, functions int
		tableSize        int
	}
	var cases []chase
	for n := 1 << 8; n <= 1<<16; n *= 4 {
		cases = append(cases, chase{fmt.Sprintf("direct %d functions", n), func() []byte { return scatterCalls(n, 0) }, 3, n + 3, 0})
	}
	// The same number of functions in as much code as the limit allows.
	for _, n := range []int{1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16} {
		pad := min(7<<20/17/n, 400)
		cases = append(cases, chase{fmt.Sprintf("direct %d functions padded %d", n, pad), func() []byte { return scatterCalls(n, pad) }, 3, n + 3, 0})
	}
	for _, pad := range []int{0, 16, 56} {
		cases = append(cases, chase{fmt.Sprintf("branches 512 padded %d", pad), func() []byte { return branchScatter(512, pad, 23) }, 13, 3, 0})
	}
	for _, size := range []int{1 << 10, 1 << 14, 1 << 17, 1 << 20} {
		cases = append(cases, chase{fmt.Sprintf("slots %d", size), func() []byte { return tableSlots(size) }, 12, 4, size})
		for _, n := range []int{1 << 8, 1 << 12, 1 << 16} {
			if n > size {
				continue
			}
			cases = append(cases, chase{fmt.Sprintf("table %d of %d functions", size, n), func() []byte { return chaseTable(n, size) }, 5, n + 3, size})
		}
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			units := float64(int64(c.units) + meter.CallPrice(uint64(c.functions), false))
			if c.tableSize > 0 {
				units += float64(meter.AccessPrice(uint64(1+c.tableSize*meter.TableElementBytes/meter.PageSize), false))
			}
			chaseRates(b, compileBytes(b, c.wasm()), plain, units, "cpu-ns/call")
		})
	}
}
