package sandbox

import "syscall"

// adviseHugePages asks for transparent huge pages (MADV_HUGEPAGE); a
// refusal leaves small pages.
func adviseHugePages(b []byte) { _ = syscall.Madvise(b, 14) }
