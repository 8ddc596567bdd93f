//go:build unix && !linux

package sandbox

// adviseHugePages does nothing where the kernel has no transparent huge
// pages to ask for.
func adviseHugePages([]byte) {}
