//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// setNice sets every thread of this process to nice value n. Linux keeps a
// nice value per thread, and a new thread starts at its creator's: every
// thread is set twice over, so that one the runtime started from a thread
// not yet set is caught by the second pass. A value below the current one
// needs CAP_SYS_NICE or RLIMIT_NICE.
func setNice(n int) error {
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, task := range tasks {
			tid, err := strconv.Atoi(task.Name())
			if err != nil {
				continue
			}
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, n); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("thread %d: %w", tid, err)
			}
		}
	}
	return nil
}
