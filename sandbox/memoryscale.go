package sandbox

import (
	"log/slog"
	"runtime"
	"sync"
	"time"
)

// The prices of memory accesses assume that a dependent load through the
// largest memory costs about referenceChase, as on the machines they were
// calibrated on (docs/fuel.md, "Memory accesses"), and keep a full tank of
// such loads at a quarter of the CPU backstop. Some machines of the
// project's kind are several times slower (330-480 ns a load), and there a
// bot within its fuel could reach the backstop. So the default backstop is
// widened by how much slower this machine's memory is, measured once per
// process when an answer first reaches the unwidened limit: most processes
// never do, and pay nothing for the measurement. The backstop is not part
// of a match's determinism (a replay records the status it gave).

// referenceChase is what one dependent load costs on the calibration's
// machines: a chase through 248 MiB, one load in each 4 KiB page in a
// scattered cycle, in plain Go, about 100 ns a step (a cache and a TLB
// miss each).
const referenceChase = 100 * time.Nanosecond

// MaxBackstopScale caps the widening: a runaway guest is stopped after at
// most this many times the CPU limit, however slow the machine's memory.
const MaxBackstopScale = 4

// probeSteps is the length of one timed chase: at 100-500 ns a step, 20 to
// 100 ms of CPU.
const probeSteps = 200_000

// memoryProbe measures the machine's memory speed once per process.
var memoryProbe = newScaleProbe(measureMemoryScale)

// A scaleProbe runs its measurement once, on a goroutine of its own, when
// first started.
type scaleProbe struct {
	measure func() float64
	once    sync.Once
	ready   chan struct{} // closed once value is set
	value   float64
}

func newScaleProbe(measure func() float64) *scaleProbe {
	return &scaleProbe{measure: measure, ready: make(chan struct{})}
}

// start starts the measurement if it has not been, and returns the channel
// closed when it is done.
func (p *scaleProbe) start() <-chan struct{} {
	p.once.Do(func() {
		go func() {
			start := time.Now()
			p.value = min(max(1, p.measure()), MaxBackstopScale)
			slog.Info("sandbox: measured this machine's memory speed, for the CPU backstop",
				"times_slower_than_calibration", p.value, "backstop", time.Duration(float64(DefaultLimits.CPU)*p.value), "took", time.Since(start))
			close(p.ready)
		}()
	})
	return p.ready
}

// known returns the factor, once it has been measured.
func (p *scaleProbe) known() (float64, bool) {
	select {
	case <-p.ready:
		return p.value, true
	default:
		return 0, false
	}
}

// BackstopScale is the factor this machine widens the default CPU backstop
// by, between 1 and MaxBackstopScale, measuring it first if no answer has
// yet: how much slower a dependent load through 248 MiB is here than on the
// calibration's machines.
func BackstopScale() float64 {
	<-memoryProbe.start()
	v, _ := memoryProbe.known()
	return v
}

// measureMemoryScale times a chase through 248 MiB, one load in each 4 KiB
// page in a fixed scattered cycle, and returns its cost a step over
// referenceChase. The chase is timed on its thread's CPU clock where it can
// be read, so that a loaded machine's waits do not count (as the backstop
// counts the guest's), and the best of three runs is taken.
func measureMemoryScale() float64 {
	const pageWords = 4096 / 4
	mem := make([]uint32, 248<<20/4)
	pages := len(mem) / pageWords
	// A multiplicative step coprime to the number of pages scrambles the
	// order of the cycle through them.
	step := 40503
	for step%2 == 0 || gcd(step, pages) != 1 {
		step++
	}
	for i := range pages {
		from, to := (i*step)%pages, ((i+1)*step)%pages
		mem[from*pageWords] = uint32(to * pageWords)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	clock, cpuOK := threadClock()
	now := func() time.Duration {
		if cpuOK {
			if d, ok := threadCPUTime(clock); ok {
				return d
			}
		}
		return time.Duration(sinceEpoch())
	}
	var p uint32
	best := time.Duration(1 << 62)
	for range 3 {
		start := now()
		for range probeSteps {
			p = mem[p]
		}
		best = min(best, now()-start)
	}
	if p == 1 { // p is used, so the chase is kept
		return 1
	}
	return float64(best) / probeSteps / float64(referenceChase)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
