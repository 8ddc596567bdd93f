//go:build unix

package sandbox

import "syscall"

// mmapReserve maps size bytes of zeroed, lazily committed memory, or returns nil.
func mmapReserve(size uint64) []byte {
	if size == 0 || size > 1<<32 {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	if hugePages {
		adviseHugePages(b)
	}
	return b
}

// hugePages asks the kernel to back linear memories with transparent huge
// pages (BenchmarkChase measures what it saves).
var hugePages = false

func munmap(b []byte) { syscall.Munmap(b) }
