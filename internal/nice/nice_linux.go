//go:build linux

package nice

import "golang.org/x/sys/unix"

// lowerThread sets the calling thread's nice value n above the process's
// (Linux keeps a nice value per thread; PRIO_PROCESS with a thread id names
// that thread alone). Raising a nice value needs no privilege.
func lowerThread(n int) bool {
	tid := unix.Gettid()
	// The raw system call answers 20 - nice, so that it is never negative.
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return false
	}
	cur := 20 - raw
	want := min(cur+n, 19)
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
