package sandbox

import (
	"sync"
	"syscall"
	"testing"
	"time"
)

// memoryScale is how much slower this machine's memory is than the
// calibration's, at least 1 and not capped: the backstop's probe
// (measureMemoryScale), run once for the tests. The CPU-time bounds of the
// memory-bound attacks (pointer chases, page faults of fresh memory) are
// multiplied by it, so that they hold the sandbox's overhead over the
// hardware to the calibration rather than the hardware itself.
var memoryScale = sync.OnceValue(func() float64 { return max(1, measureMemoryScale()) })

// memoryBound is bound scaled for this machine's memory (memoryScale).
func memoryBound(t *testing.T, bound time.Duration) time.Duration {
	t.Helper()
	s := memoryScale()
	if s > 1 {
		t.Logf("this machine's memory is %.1f times slower than the calibration's: the bound %v becomes %v", s, bound, time.Duration(float64(bound)*s))
	}
	return time.Duration(float64(bound) * s)
}

// referenceTouch is what the kernel's work for a fresh 4 KiB page (find,
// zero, map) costs on the calibration's machines: docs/fuel.md's
// grow-and-touch figure, about 2 ns a unit at 16,384 units a 64 KiB page.
const referenceTouch = 2 * time.Microsecond

// pageScale is how much slower the kernel hands out fresh pages here than
// on the calibration's machines, at least 1: 64 MiB mapped anew and
// written once a page, timed. It scales the grow-and-touch bound.
var pageScale = sync.OnceValue(func() float64 {
	const size, page = 64 << 20, 4096
	best := time.Duration(1 << 62)
	for range 3 {
		mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			return 1
		}
		start := time.Now()
		for i := 0; i < size; i += page {
			mem[i] = 1
		}
		best = min(best, time.Since(start))
		_ = syscall.Munmap(mem)
	}
	return max(1, float64(best)/float64(size/page)/float64(referenceTouch))
})
