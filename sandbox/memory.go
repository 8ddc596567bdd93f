package sandbox

import (
	"os"

	"github.com/arenabots/arena/sandbox/meter"
	"github.com/tetratelabs/wazero/experimental"
)

// memoryAllocator backs each linear memory with one anonymous mapping of its
// maximum size where the system has mmap, so growing it is a slice
// operation and the kernel hands out zeroed pages as they are touched.
// wazero's default appends to a Go slice and copies the whole memory on
// growth, work that fuel does not see: a Go bot allocating until it hit
// 256 MiB took 0.6-1.4 s to crash (9-18 ms with the mapping).
var memoryAllocator = experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
	if b := mmapReserve(max); b != nil {
		return &mappedMemory{buf: b}
	}
	return &sliceMemory{max: max}
})

type mappedMemory struct {
	buf       []byte
	size      uint64       // the size given out so far
	given     bool         // whether the initial size has been given out
	dataSpans []meter.Span // pages the data segments will write, prefaulted with the initial size
}

// Reallocate gives out the first size bytes of the mapping. Pages added
// by a memory.grow are faulted in at once (prefault): a guest touching
// freshly grown pages one 4 KiB page at a time made the host take a page
// fault for each, which on a busy machine cost up to 15 ns of CPU per unit
// of fuel the grow paid (docs/fuel.md), and the kernel's batch is cheaper.
// memory.grow pays PagePrice per page for this work. The initial memory is
// faulted in at once too when it is small (Go's 2 MiB, which its runtime
// fills with 22,000 data segments, its globals and its first heap), and
// otherwise only the pages the data segments are about to fill: a large
// declared minimum is often far more than a module uses. Instantiation pays
// PagePrice for every page of the initial memory either way.
func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil
	}
	if m.given && size > m.size && prefaultGrowth {
		prefault(m.buf[m.size:size])
	}
	if !m.given && prefaultData {
		if size <= prefaultInitial {
			prefault(m.buf[:size])
		} else {
			for _, s := range m.dataSpans {
				if s.Start < size {
					prefault(m.buf[s.Start:min(s.End, size)])
				}
			}
		}
	}
	m.given, m.size = true, max(m.size, size)
	return m.buf[:size:size]
}

// prefaultGrowth is whether Reallocate faults grown pages in at once (a
// variable for benchmarks that compare).
var prefaultGrowth = true

// prefaultData is whether the initial Reallocate faults in the data
// segments' pages (a variable for benchmarks that compare).
var prefaultData = true

// prefaultInitial is the largest initial memory faulted in whole.
const prefaultInitial = 4 << 20

// hostPageSize is the unit of prefaulting.
var hostPageSize = uint64(os.Getpagesize())

func (m *mappedMemory) Free() {
	if m.buf != nil {
		munmap(m.buf)
		m.buf = nil
	}
}

// sliceMemory is the fallback: a Go slice, as wazero does by default.
type sliceMemory struct {
	buf []byte
	max uint64
}

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
	} else {
		m.buf = append(m.buf[:cap(m.buf)], make([]byte, size-uint64(cap(m.buf)))...)
	}
	return m.buf
}

func (m *sliceMemory) Free() { m.buf = nil }
