//go:build linux

package sandbox

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadClock is the CPU-time clock of the calling OS thread, readable from
// any thread of the process (Linux's MAKE_THREAD_CPUCLOCK: the thread's id,
// complemented, shifted past the clock kind CPUCLOCK_SCHED, per thread).
// The guest goroutine is locked to its thread, so that thread's CPU time is
// the time the guest and the host calls it makes have had a core.
func threadClock() (clock int32, ok bool) {
	return ^int32(unix.Gettid())<<3 | 6, true
}

// threadCPUTime reads a clock of threadClock.
func threadCPUTime(clock int32) (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(clock, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
