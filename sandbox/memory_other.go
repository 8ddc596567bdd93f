//go:build !unix

package sandbox

func mmapReserve(uint64) []byte { return nil }

func munmap([]byte) {}
