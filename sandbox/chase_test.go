package sandbox

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// lineChase is an echo module whose memory holds, from chaseBase on, a
// region of size bytes (a power of two) cut into nodes of stride bytes, each
// holding the address of the next in one cycle through all of them, in the
// order of a full-period linear congruential generator (so every node is a
// jump far from the last). The start function builds the cycle; every turn
// follows it forever: local.get, i32.load, local.tee, br_if, 4 units and one
// dependent load a hop, a cache and TLB miss each once the region outgrows
// them.
func lineChase(size, stride int) []byte {
	n := int32(size / stride)
	pages := 2 + size/65536
	node := func(l uint32) []byte { // base + local l * stride
		return Cat(Get(l), I32(int32(stride)), []byte{0x6c}, I32(chaseBase), I32Add)
	}
	load := []byte{0x28, 2, 0}
	turn := Cat(
		I32(chaseFlag), load, If,
		I32(chaseBase), Set(0),
		Loop, Get(0), load, Tee(0), BrIf(0), End,
		[]byte{0x05}, // else: build the cycle
		I32(chaseFlag), I32(1), Store(0),
		I32(0), Set(0), I32(n), Set(1),
		Loop,
		Get(0), I32(1664525), []byte{0x6c}, I32(1013904223), I32Add, I32(n-1), []byte{0x71}, Set(2),
		node(0), node(2), Store(0),
		Get(2), Set(0),
		Get(1), I32(1), I32Sub, Tee(1), BrIf(0),
		End,
		End)
	return inStartup(Echo{MinPages: pages, TurnLocals: 3, Turn: turn}.Module())
}

const (
	chaseFlag = 64
	chaseBase = 128 << 10
)

// BenchmarkChase measures the memory latency the cost model must price
// (docs/fuel.md, cost model 4): dependent loads through memories of 1 MiB
// to 248 MiB, two chases and two plain loops at once (two matches per
// core), reporting the worst CPU time of the guest's thread per hop and
// per unit of fuel over a full tank of 20,000,000. "lines" chases every
// stride-th line of a region of the size given; "pages" is the red team's
// module (one node in each 4 KiB page, placed by data segments).
//
//	nice -n -5 go test -run XXX -bench Chase -benchtime=2x ./sandbox/
//
// ARENA_HUGEPAGES=1 backs linear memory with transparent huge pages.
func BenchmarkChase(b *testing.B) {
	if _, ok := threadClock(); !ok {
		b.Skip("the guest's CPU time cannot be read here")
	}
	hugePages = os.Getenv("ARENA_HUGEPAGES") == "1"
	defer func() { hugePages = false }()
	plain := compileBytes(b, calibration[0].wasm())
	type chase struct {
		name  string
		pages int
		wasm  func() []byte
	}
	var cases []chase
	for kib := 256; kib <= 128<<10; kib *= 2 {
		cases = append(cases, chase{fmt.Sprintf("lines %d KiB", kib), 2 + kib/64, func() []byte { return lineChase(kib<<10, 64) }})
	}
	for _, pages := range []int{16, 32, 64, 128, 256, 512, 1024, 2048, meter.MaxMemoryPages} {
		cases = append(cases, chase{fmt.Sprintf("pages %d MiB", pages/16), pages, func() []byte { return chaseModule(pages, false) }})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			chaseRates(b, compileBytes(b, c.wasm()), plain, float64(4+meter.AccessPrice(uint64(c.pages), false)), "cpu-ns/hop")
		})
	}
}

// chaseRates runs mod, a chase that never stops, beside plain (pairedRates)
// b.N times, and reports its worst CPU time per unit of fuel, per hop of
// unitsPerHop units (as the metric perHop), per 100,000,000 units, and
// against the plain loop's.
func chaseRates(b *testing.B, mod, plain *Module, unitsPerHop float64, perHop string) {
	var worst, worstPlain float64
	lim := DefaultLimits
	lim.StartAllowance, lim.CPU, lim.Wall = 1e9, time.Minute, time.Hour
	for i := 0; i < b.N; i++ {
		r := pairedRates(b, mod, plain, lim, func(r protocol.Reply) error {
			if r.Status != protocol.Fuel {
				return fmt.Errorf("status %s (%s), want fuel", r.Status, r.Detail)
			}
			return nil
		})
		worst, worstPlain = max(worst, r.cpu), max(worstPlain, r.plainCPU)
	}
	b.ReportMetric(worst, "worst-cpu-ns/fuel")
	b.ReportMetric(worst*unitsPerHop, perHop)
	b.ReportMetric(worst*100e6/1e6, "cpu-ms/100M")
	if worstPlain > 0 {
		b.ReportMetric(worst/worstPlain, "x-plain")
	}
}
