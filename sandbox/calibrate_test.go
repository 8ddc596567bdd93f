package sandbox

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/arenabots/arena/protocol"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// The calibration of the cost model (docs/fuel.md): for each kind of work, a
// module does nothing but that, forever, and four matches run at once on
// the two cores (two per core), two of that kind and two of the plain
// loop; the benchmark reports the worst CPU time of the guest's thread per
// unit of fuel over a full 20,000,000 tank, and its ratio to the plain loop
// measured at the same moment. The prices are right when the worst of these
// times 100,000,000 (the start-up allowance, the most fuel one answer can
// spend) stays well under half the 2 s backstop on the guest's CPU time.
//
//	go test -run XXX -bench Calibrate -benchtime=3x ./sandbox/
var calibration = []struct {
	name string
	wasm func() []byte
}{
	{"plain i32.add loop", echo(Echo{TurnLocals: 1, Turn: Forever(Get(0), I32(1), I32Add, Set(0))})},
	{"calls", echo(Echo{Turn: Forever(Call(TurnFunc + 1 - 2))})}, // recursion: the recurse function, to a stack overflow
	{"memory.fill 1 MiB", echo(Echo{MinPages: 64, Turn: Forever(I32(bigAt), I32(7), I32(1<<20), MemoryFill)})},
	{"memory.copy 1 MiB", echo(Echo{MinPages: 64, Turn: Forever(I32(bigAt+1<<20), I32(bigAt), I32(1<<20), MemoryCopy)})},
	{"memory.fill 64 B", echo(Echo{Turn: Forever(I32(scratch), I32(7), I32(64), MemoryFill)})},
	{"memory.copy 64 B", echo(Echo{Turn: Forever(I32(scratch+64), I32(scratch), I32(64), MemoryCopy)})},
	{"memory.fill 8 B", echo(Echo{Turn: Forever(I32(scratch), I32(7), I32(8), MemoryFill)})},
	{"memory.copy 8 B", echo(Echo{Turn: Forever(I32(scratch+64), I32(scratch), I32(8), MemoryCopy)})},
	{"memory.copy 0 B", echo(Echo{Turn: Forever(I32(scratch+64), I32(scratch), I32(0), MemoryCopy)})},
	{"memory.grow 1 and touch", echo(Echo{Turn: Forever(I32(1), MemoryGrow, I32(16), []byte{0x74}, I32(1), Store(0))})},
	{"memory.grow 1 and touch every 4 KiB", growTouch},
	{"table.grow 100,000", echo(Echo{Table: true, Turn: Forever(RefNull, I32(100_000), TableGrow, Drop)})},
	{"table.grow 1", echo(Echo{Table: true, Turn: Forever(RefNull, I32(1), TableGrow, Drop)})},
	{"table.fill 1M", echo(Echo{Table: true, TableMin: 1 << 20, Turn: Forever(I32(0), RefNull, I32(1<<20), TableFill)})},
	{"table.copy 1M", echo(Echo{Table: true, TableMin: 1 << 20, Turn: Forever(I32(0), I32(0), I32(1<<20), TableCopy)})},
	{"fd_write 64 KiB to stderr", echo(Echo{Turn: Forever(wasiCall(FdWrite, 2, 0, 1, scratch))})},
	{"fd_write 1 B to stderr", echo(Echo{Turn: Forever(wasiCall(FdWrite, 2, 8, 1, scratch))})},
	{"fd_write 16K iovecs", echo(Echo{Turn: Forever(wasiCall(FdWrite, 2, 0, 1<<14, scratch))})},
	{"fd_write 256K one-byte iovecs", func() []byte {
		return withIovecs(Echo{MinPages: 300, Turn: Forever(wasiCall(FdWrite, 2, iovecsAt, 1<<18, scratch))}, 1<<18)
	}},
	{"fd_read bad fd", echo(Echo{Turn: Forever(wasiCall(FdRead, 99, 0, 1, scratch))})},
	{"random_get 64 KiB", echo(Echo{Turn: Forever(wasiCall(RandomGet, 1024, 1<<16))})},
	{"random_get 8 B", echo(Echo{Turn: Forever(wasiCall(RandomGet, scratch, 8))})},
	{"poll_oneoff 2730 subs", echo(Echo{Turn: Forever(wasiCall(PollOneoff, 0, scratch, 1<<20, scratch+64))})},
	{"clock_time_get", echo(Echo{Turn: Forever(I32(1), I64(0), I32(scratch), Call(ClockTimeGet), Drop)})},
	// The slowest instructions, each in a chain of ten that depend on one
	// another, so that nothing overlaps (cost model 5 prices the square
	// roots at 4 units).
	{"f64.sqrt chain", echo(Echo{Turn: Forever(chain(0x2b, 3, []byte{0x9f}, 0x39))})},
	{"f64x2.sqrt chain", echo(Echo{Turn: Forever(chain(0, 4, simdOp(239), 11))})},
	{"f64.div chain", echo(Echo{Turn: Forever(chain(0x2b, 3, Cat(I32(96), []byte{0x2b, 3, 0, 0xa3}), 0x39))})},
	{"f64x2.div chain", echo(Echo{Turn: Forever(chain(0, 4, Cat(I32(96), simdOp(0), []byte{4, 0}, simdOp(243)), 11))})},
	{"i64.div_s chain", echo(Echo{Turn: Forever(chain(0x29, 3, Cat(I64(7), []byte{0x7f}, I64(-0x7fffffffffffffff), []byte{0x7e}), 0x37))})},
	{"i32x4.trunc_sat_f32x4_u chain", echo(Echo{Turn: Forever(chain(0, 4, simdOp(249), 11))})},
	{"f32x4.convert_i32x4_u chain", echo(Echo{Turn: Forever(chain(0, 4, simdOp(251), 11))})},
	{"i64x2.shr_s chain", echo(Echo{Turn: Forever(chain(0, 4, Cat(I32(3), simdOp(204)), 11))})},
}

// chain loads a value from scratch memory (the load opcode, a SIMD one if
// align is 4), applies op to it ten times, and stores it back (the store
// opcode).
func chain(load byte, align byte, op []byte, store byte) []byte {
	ld, st := []byte{load, align, 0}, []byte{store, align, 0}
	if align == 4 {
		ld, st = Cat(simdOp(uint32(load)), []byte{align, 0}), Cat(simdOp(uint32(store)), []byte{align, 0})
	}
	return Cat(I32(64), I32(64), ld, Repeat(op, 10), st)
}

// simdOp is the SIMD instruction op, without its immediates.
func simdOp(op uint32) []byte { return Cat([]byte{0xfd}, ULEB(uint64(op))) }

func echo(e Echo) func() []byte { return e.Module }

// growTouch grows the memory by a page and writes to each of its 4 KiB
// pages, forever: every write is a page fault unless the grow faulted
// them in (prefault).
func growTouch() []byte {
	touch := Cat(I32(1), MemoryGrow, I32(16), []byte{0x74}, Set(0))
	for k := uint32(0); k < 16; k++ {
		touch = Cat(touch, Get(0), I32(1), Store(k*4096))
	}
	return Echo{TurnLocals: 1, Turn: Forever(touch)}.Module()
}

// The grow-and-touch case with the grown pages faulted in at the grow and
// without, in turns, at the calibration's load, at twice it (eight matches
// at once on the two cores, as in a tournament of eight bots), and with all
// eight growing.
//
//	go test -run XXX -bench GrowTouch -benchtime=3x ./sandbox/
func BenchmarkGrowTouch(b *testing.B) {
	if _, ok := threadClock(); !ok {
		b.Skip("the guest's CPU time cannot be read here")
	}
	plain := compileBytes(b, calibration[0].wasm())
	mod := compileBytes(b, growTouch())
	defer func() { prefaultGrowth = true }()
	for _, c := range []struct {
		name   string
		pairs  int
		beside *Module
	}{
		{"4 matches, 2 growing", 2, plain},
		{"8 matches, 4 growing", 4, plain},
		{"8 matches, all growing", 4, mod},
	} {
		b.Run(c.name, func(b *testing.B) {
			var worst [2]float64
			for i := 0; i < b.N; i++ {
				for k, on := range []bool{true, false} {
					prefaultGrowth = on
					r := pairedRatesN(b, mod, c.beside, c.pairs, Limits{CPU: time.Minute, Wall: time.Hour}, func(r protocol.Reply) error {
						if r.Status != protocol.Fuel && r.Status != protocol.Crash {
							return fmt.Errorf("status %s, want fuel or crash", r.Status)
						}
						return nil
					})
					worst[k] = max(worst[k], r.cpu)
					if c.beside == mod {
						worst[k] = max(worst[k], r.plainCPU)
					}
				}
			}
			b.ReportMetric(worst[0], "prefault-worst-cpu-ns/fuel")
			b.ReportMetric(worst[1], "faults-worst-cpu-ns/fuel")
		})
	}
}

func BenchmarkCalibrate(b *testing.B) {
	if _, ok := threadClock(); !ok {
		b.Skip("the guest's CPU time cannot be read here")
	}
	plain := compileBytes(b, calibration[0].wasm())
	for _, c := range calibration {
		b.Run(c.name, func(b *testing.B) {
			mod := compileBytes(b, c.wasm())
			var worst, worstPlain, worstWall float64
			for i := 0; i < b.N; i++ {
				r := pairedRates(b, mod, plain, Limits{CPU: time.Minute, Wall: time.Hour}, func(r protocol.Reply) error {
					if r.Status != protocol.Fuel && r.Status != protocol.Crash {
						return fmt.Errorf("status %s, want fuel or crash", r.Status)
					}
					return nil
				})
				worst, worstPlain, worstWall = max(worst, r.cpu), max(worstPlain, r.plainCPU), max(worstWall, r.wall)
			}
			b.ReportMetric(worst, "worst-cpu-ns/fuel")
			b.ReportMetric(worst*100e6/1e6, "cpu-ms/100M")
			b.ReportMetric(worstWall, "worst-wall-ns/fuel")
			if worstPlain > 0 {
				b.ReportMetric(worst/worstPlain, "x-plain")
			}
		})
	}
}

// rates are the worst host time per unit of fuel of one pairedRates run.
type rates struct{ cpu, plainCPU, wall float64 }

// pairedRates runs two instances of mod and two of plain at once (two
// matches per core on this 2-core machine, the load the prices are set
// for), asks each one question from a 20,000,000 tank, and returns the worst
// CPU time per unit of fuel of mod's and of plain's answers (and mod's wall
// time). check says what is wrong with an answer's status, if anything;
// answers under 1,000,000 fuel are too short to time.
func pairedRates(b testing.TB, mod, plain *Module, lim Limits, check func(protocol.Reply) error) rates {
	return pairedRatesN(b, mod, plain, 2, lim, check)
}

// pairedRatesN is pairedRates with pairs instances of each module.
func pairedRatesN(b testing.TB, mod, plain *Module, pairs int, lim Limits, check func(protocol.Reply) error) rates {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var out rates
	for k := 0; k < 2*pairs; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := mod
			if k%2 == 1 {
				m = plain
			}
			tank := &Tank{PerTurn: 20_000_000, Cap: 20_000_000}
			in, err := testRT.Start(context.Background(), m, Config{Tank: tank, Limits: lim})
			if err != nil {
				b.Error(err)
				return
			}
			defer in.Stop()
			// The first answer after start-up: time only the turn.
			cpu0, _ := in.guestCPU()
			start := time.Now()
			r := in.Ask(context.Background(), obsWithFuel(`{}`))
			wall := time.Since(start)
			cpu, _ := in.guestCPU()
			if err := check(r); err != nil {
				b.Error(err)
				return
			}
			if r.Fuel <= 1_000_000 {
				return
			}
			rate := float64((cpu - cpu0).Nanoseconds()) / float64(r.Fuel)
			mu.Lock()
			defer mu.Unlock()
			if k%2 == 1 {
				out.plainCPU = max(out.plainCPU, rate)
			} else {
				out.cpu = max(out.cpu, rate)
				out.wall = max(out.wall, float64(wall.Nanoseconds())/float64(r.Fuel))
			}
		}()
	}
	wg.Wait()
	return out
}

// Growing the memory a page at a time and writing to every 4 KiB of each
// new page, on a full tank, at the calibration's load (two such matches and
// two of the plain loop on the two cores), costs the host no more CPU per
// unit of fuel than the dearest work calibrated, 2.7 ns, and 10% for noise:
// at the price of cost model 5 it took 4.0-4.7 ns (docs/fuel.md, "Growing
// memory and touching it").
func TestGrowTouchWithinCalibration(t *testing.T) {
	if _, ok := threadClock(); !ok {
		t.Skip("the guest's CPU time cannot be read here")
	}
	plain := compileBytes(t, calibration[0].wasm())
	mod := compileBytes(t, growTouch())
	var worst float64
	for range 2 {
		r := pairedRates(t, mod, plain, Limits{CPU: time.Minute, Wall: time.Hour}, func(r protocol.Reply) error {
			if r.Status != protocol.Fuel && r.Status != protocol.Crash {
				return fmt.Errorf("status %s, want fuel or crash", r.Status)
			}
			return nil
		})
		worst = max(worst, r.cpu)
	}
	t.Logf("worst %.2f ns of CPU per unit", worst)
	if pageScale() > 1 {
		t.Logf("this machine hands out fresh pages %.1f times slower than the calibration's", pageScale())
	}
	if bound := 3.0 * raceScale * pageScale(); worst > bound {
		t.Errorf("growing and touching memory took %.2f ns of CPU per unit of fuel, more than the calibrated 2.7 ns and 10%%", worst)
	}
}
