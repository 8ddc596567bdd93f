//go:build linux

package nice

import (
	"time"

	"golang.org/x/sys/unix"
)

// batchSlice is the time slice a batch thread asks for (sched_attr's
// sched_runtime for a fair-class thread, Linux 6.12 and later; ignored
// before). It only has to be longer than the default slice that every
// other thread keeps (0.7 ms times 1 + log2 of the cores, up to 8: 1.4 ms
// on 2 cores): then a waking thread of the server, shorter-sliced, may
// cancel the running batch thread's slice protection and take the core at
// once (EEVDF's PREEMPT_SHORT), where between equal slices it waits for
// the running one's slice to end, or the next tick (4 ms at HZ=250). Longer
// slices do not change a thread's share of a core, only how long it may
// keep it against another CPU-bound thread.
const batchSlice = 20 * time.Millisecond

// lowerThread sets the calling thread's nice value n above the process's
// (Linux keeps a nice value per thread; PRIO_PROCESS with a thread id names
// that thread alone), and with batch makes it a SCHED_BATCH thread with
// batchSlice. Raising a nice value, SCHED_BATCH and a slice need no
// privilege.
//
// SCHED_BATCH keeps the weight of the nice value; what it changes is that
// the thread never preempts another when it wakes (kernel/sched/fair.c:
// "BATCH and IDLE tasks do not preempt others"), which matters to a match
// on the threaded hand-off (sandbox/handoff.go), whose threads wake at
// every question and answer. The long slice is the other direction: the
// server's threads preempt it.
func lowerThread(n int, batch bool) bool {
	tid := unix.Gettid()
	// The raw system call answers 20 - nice, so that it is never negative.
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return false
	}
	cur := 20 - raw
	want := min(cur+n, 19)
	if batch {
		attr := unix.SchedAttr{Policy: unix.SCHED_BATCH, Nice: int32(want), Runtime: uint64(batchSlice)}
		if unix.SchedSetAttr(0, &attr, 0) == nil {
			return true
		}
		// No sched_setattr (before Linux 3.14): the nice value alone.
	}
	if want <= cur {
		return false
	}
	return unix.Setpriority(unix.PRIO_PROCESS, tid, want) == nil
}

// threadNice is the calling thread's nice value (tests).
func threadNice() (int, error) {
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	return 20 - raw, err
}
