package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/arenabots/arena/internal/nice"
	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// The benchmark bots, by language: a plain negamax (CPU-heavy) and one that
// answers {} to every line (trivial).
func benchBot(b *testing.B, lang, name string) string {
	if lang == "c" {
		return wasmtest.CBuild(b, filepath.Join("testdata", "c", name+".c"))
	}
	return wasmtest.GoBuild(b, filepath.Join("testdata", name), "")
}

var langs = []string{"go", "c"}

// benchLimits never stop a benchmark bot.
var benchLimits = Limits{CPU: time.Minute, Wall: time.Hour}

func startBench(b *testing.B, path string) *Instance {
	b.Helper()
	// A tank no solve runs dry: under cost model 4 the Go solve's memory
	// accesses beyond 20,000,000 of one answer pay the dear prices.
	tank := &Tank{PerTurn: 1 << 40, Cap: 1 << 40}
	in, err := testRT.Start(context.Background(), compileFile(b, path), Config{Tank: tank, Limits: benchLimits})
	if err != nil {
		b.Fatal(err)
	}
	return in
}

func askOK(b *testing.B, in *Instance, obs string) int64 {
	r := in.Ask(context.Background(), func(int64) []byte { return []byte(obs) })
	if r.Status != protocol.OK {
		b.Fatalf("%+v", r)
	}
	return r.Fuel
}

// BenchmarkSearch compares one full tic-tac-toe negamax metered in the
// sandbox with the same module unmetered in plain wazero. Each iteration runs
// both, one after the other, and the ratio metered/unmetered is taken on the
// process's CPU time, which the load of a shared machine disturbs far less
// than wall-clock time (both are reported).
func BenchmarkSearch(b *testing.B) {
	for _, lang := range langs {
		b.Run(lang, func(b *testing.B) {
			path := benchBot(b, lang, "search")
			in := startBench(b, path)
			defer in.Stop()
			p := startPlain(b, path, false)
			defer p.stop()
			fuel := askOK(b, in, "{}")
			p.ask(b, "{}")
			var metered, unmetered, meteredCPU, unmeteredCPU time.Duration
			b.ResetTimer()
			for b.Loop() {
				t0, c0 := time.Now(), cpuTime(b)
				askOK(b, in, "{}")
				t1, c1 := time.Now(), cpuTime(b)
				p.ask(b, "{}")
				metered += t1.Sub(t0)
				unmetered += time.Since(t1)
				meteredCPU += c1 - c0
				unmeteredCPU += cpuTime(b) - c1
			}
			n := float64(b.N)
			b.ReportMetric(float64(metered.Nanoseconds())/n, "metered-ns/op")
			b.ReportMetric(float64(unmetered.Nanoseconds())/n, "unmetered-ns/op")
			b.ReportMetric(float64(meteredCPU)/float64(unmeteredCPU), "cpu-ratio")
			b.ReportMetric(float64(metered)/float64(unmetered), "wall-ratio")
			b.ReportMetric(float64(fuel), "fuel/op")
			b.ReportMetric(float64(in.MemoryPages())/16, "memory-MiB")
		})
	}
}

// BenchmarkSearchSide runs one side of BenchmarkSearch's solve alone in a
// bare wazero runtime: the original module ("plain"), or the metered one
// ("metered") with a host that answers every refill with fuel it never
// runs out of, at the turn's prices of its memory, functions and code (as
// Instance sets them). Only the meter's own code differs between the two,
// so valgrind, which counts instructions whatever the machine's load, can
// measure the meter's cost one side per process (the sandbox's child
// processes and signals stop it). The guest's machine code is the code of
// no object file, "???" in callgrind's report; the count covers start-up,
// the warm-up answer and the timed one (docs/sandbox.md, "Metering
// overhead"):
//
//	go test -c -o /tmp/sandbox.test ./sandbox/ && cd sandbox
//	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//	  /tmp/sandbox.test -test.run XXX -test.bench SearchSide/c/metered -test.benchtime 1x
//	callgrind_annotate --threshold=100 /tmp/cg.out | awk '/\[\?\?\?\]$/ {gsub(",", "", $1); s += $1} END {print s}'
func BenchmarkSearchSide(b *testing.B) {
	for _, lang := range langs {
		b.Run(lang, func(b *testing.B) {
			for _, side := range []string{"metered", "plain"} {
				b.Run(side, func(b *testing.B) {
					p := startPlain(b, benchBot(b, lang, "search"), side == "metered")
					defer p.stop()
					p.ask(b, "{}")
					b.ResetTimer()
					for b.Loop() {
						p.ask(b, "{}")
					}
				})
			}
		})
	}
}

// BenchmarkRoundTrip is one observation and answer for a trivial bot. A
// shared machine's load moves wall-clock figures by tens of percent, so
// each sub-benchmark alternates blocks of round trips with blocks of a Go
// channel ping-pong (pingPong) in the same process and reports both, their
// ratio, and the process's CPU time for each: ns/op and cpu-ns/op are the
// round trip's, pingpong-ns/op and pingpong-cpu-ns/op the ping-pong's.
// The -nice variants ask as a worker does when its matches run lowered
// (internal/nice, arena serve --match-nice): from a goroutine locked to a
// lowered thread, to a guest on a lowered thread of its own.
//
//	go test -run XXX -bench RoundTrip -benchtime=20000x -count=3 ./sandbox/
func BenchmarkRoundTrip(b *testing.B) {
	for _, lang := range langs {
		for _, lower := range []int{0, 10} {
			name := lang
			if lower > 0 {
				name += "-nice"
			}
			b.Run(name, func(b *testing.B) { benchRoundTrip(b, lang, lower) })
		}
	}
}

func benchRoundTrip(b *testing.B, lang string, lower int) {
	ctx := nice.With(context.Background(), lower)
	tank := &Tank{PerTurn: 1 << 40, Cap: 1 << 40}
	in, err := testRT.Start(ctx, compileFile(b, benchBot(b, lang, "trivial")), Config{Tank: tank, Limits: benchLimits})
	if err != nil {
		b.Fatal(err)
	}
	defer in.Stop()
	var fuel int64
	nice.Run(lower, func() { fuel = askOK(b, in, `{"turn":1}`) })
	pp := startPingPong()
	defer pp.stop()
	var ask, ping, askCPU, pingCPU time.Duration
	const block = 250
	b.ResetTimer()
	for done := 0; done < b.N; done += block {
		n := min(block, b.N-done)
		var t0, t1 time.Time
		var c0, c1 time.Duration
		nice.Run(lower, func() {
			t0, c0 = time.Now(), cpuTime(b)
			for range n {
				askOK(b, in, `{"turn":1}`)
			}
			t1, c1 = time.Now(), cpuTime(b)
		})
		t2, c2 := time.Now(), cpuTime(b)
		pp.run(n)
		ask += t1.Sub(t0)
		askCPU += c1 - c0
		ping += time.Since(t2)
		pingCPU += cpuTime(b) - c2
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
	b.ReportMetric(per(ask), "ns/op")
	b.ReportMetric(per(askCPU), "cpu-ns/op")
	b.ReportMetric(per(ping), "pingpong-ns/op")
	b.ReportMetric(per(pingCPU), "pingpong-cpu-ns/op")
	b.ReportMetric(float64(ask)/float64(ping), "x-pingpong")
	b.ReportMetric(float64(fuel), "fuel/op")
}

// pingPong is the reference for the round trip: a goroutine that answers
// each value sent on one channel on another, the cheapest hand-off between
// two goroutines the language offers.
type pingPong struct{ ping, pong chan int }

func startPingPong() pingPong {
	p := pingPong{make(chan int), make(chan int)}
	go func() {
		for v := range p.ping {
			p.pong <- v
		}
	}()
	return p
}

// run makes n round trips.
func (p pingPong) run(n int) {
	for i := range n {
		p.ping <- i
		<-p.pong
	}
}

func (p pingPong) stop() { close(p.ping) }

// BenchmarkInstantiate starts an instance, runs it to its first answer and
// stops it. It also reports the resident memory each live instance adds.
// BenchmarkInstantiate starts a trivial bot and has its first answer, with
// the initial memory's pages faulted in at once (the sandbox's way) and left
// to the guest's page faults, in CPU time a start (the process's, so the
// kernel's work on the faults counts); and the resident memory of 20 live
// instances.
func BenchmarkInstantiate(b *testing.B) {
	defer func() { prefaultData = true }()
	for _, lang := range langs {
		for _, pf := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/prefault=%v", lang, pf), func(b *testing.B) {
				prefaultData = pf
				mod := compileFile(b, benchBot(b, lang, "trivial"))
				start := func() *Instance {
					in, err := testRT.Start(context.Background(), mod, Config{Tank: protocolTank(), Limits: benchLimits})
					if err != nil {
						b.Fatal(err)
					}
					askOK(b, in, "{}")
					return in
				}
				start().Stop()
				cpu0 := cpuTime(b)
				b.ResetTimer()
				for b.Loop() {
					start().Stop()
				}
				b.StopTimer()
				b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
				// Memory: 20 live instances at once.
				const live = 20
				runtime.GC()
				before := rss(b)
				var ins []*Instance
				for i := 0; i < live; i++ {
					ins = append(ins, start())
				}
				after := rss(b)
				for _, in := range ins {
					in.Stop()
				}
				b.ReportMetric(float64(after-before)/live/(1<<20), "MiB-RSS/instance")
			})
		}
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Skip("no getrusage")
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func rss(b *testing.B) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	b.Skip("no VmRSS")
	return 0
}

// plain runs the original, unmetered module in a bare wazero runtime with the
// same settings: the baseline the meter's cost is measured against.
type plain struct {
	rt    wazero.Runtime
	stdin *io.PipeWriter
	lines chan []byte
	done  chan struct{}
}

func startPlain(b *testing.B, path string, metered bool) *plain {
	b.Helper()
	wasm, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithDebugInfoEnabled(false))
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	if metered {
		if wasm, err = meter.Instrument(wasm); err != nil {
			b.Fatal(err)
		}
		if _, err := rt.NewHostModuleBuilder(meter.ImportModule).NewFunctionBuilder().
			WithFunc(plainRefill).Export(meter.ImportName).Instantiate(ctx); err != nil {
			b.Fatal(err)
		}
	}
	cm, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		b.Fatal(err)
	}
	r, w := io.Pipe()
	p := &plain{rt: rt, stdin: w, lines: make(chan []byte, 1), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithStdin(r).WithStdout(lineWriter{p.lines}))
	}()
	return p
}

// plainRefill answers a metered module's refill in startPlain: the turn's
// prices, and a counter it never spends.
func plainRefill(ctx context.Context, mod api.Module, counter, charge int64) int64 {
	set := func(name string, v int64) { mod.ExportedGlobal(name).(api.MutableGlobal).Set(uint64(v)) }
	pages := uint64(mod.Memory().Size()) >> 16
	meter.SetPrices(set, meter.AccessPrice(pages, false),
		meter.CallPrice(mod.ExportedGlobal(meter.FunctionsExport).Get(), false),
		meter.BranchPrice(mod.ExportedGlobal(meter.CodeBytesExport).Get(), false))
	set(meter.GlobalExport, counter+1<<40)
	return counter + 1<<40
}

func (p *plain) ask(b *testing.B, obs string) {
	if _, err := io.WriteString(p.stdin, obs+"\n"); err != nil {
		b.Fatal(err)
	}
	<-p.lines
}

func (p *plain) stop() {
	p.stdin.Close()
	<-p.done
	p.rt.Close(context.Background())
}

// lineWriter sends each write that ends a line (the benchmark bots write
// whole lines).
type lineWriter struct{ lines chan []byte }

func (w lineWriter) Write(p []byte) (int, error) {
	if bytes.HasSuffix(p, []byte("\n")) {
		w.lines <- nil
	}
	return len(p), nil
}

// BenchmarkLiveInstances holds 1,000 instances of the trivial bot alive at
// once, each having answered once and waiting for its next observation,
// and reports the process's threads (each waiting instance keeps its
// guest goroutine locked to an OS thread) and resident memory per
// instance, then stops them all.
//
//	nice -n -5 go test -run XXX -bench LiveInstances -benchtime=1x ./sandbox/
func BenchmarkLiveInstances(b *testing.B) {
	const live = 1000
	for _, lang := range langs {
		b.Run(lang, func(b *testing.B) {
			mod := compileFile(b, benchBot(b, lang, "trivial"))
			for b.Loop() {
				runtime.GC()
				threads0, rss0 := procStatus(b, "Threads:"), rss(b)
				var ins []*Instance
				start := time.Now()
				for i := 0; i < live; i++ {
					in, err := testRT.Start(context.Background(), mod, Config{Tank: protocolTank(), Limits: benchLimits})
					if err != nil {
						b.Fatal(err)
					}
					askOK(b, in, "{}")
					ins = append(ins, in)
				}
				started := time.Since(start)
				threads, mem := procStatus(b, "Threads:"), rss(b)
				for _, in := range ins {
					in.Stop()
				}
				b.ReportMetric(float64(threads-threads0), "threads")
				b.ReportMetric(float64(mem-rss0)/live/(1<<20), "MiB-RSS/instance")
				b.ReportMetric(float64(started.Microseconds())/live, "µs-start+answer/instance")
			}
		})
	}
}

// procStatus reads a count from /proc/self/status.
func procStatus(b *testing.B, key string) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	b.Skip("no " + key)
	return 0
}
