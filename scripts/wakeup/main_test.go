//go:build linux

package main

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Each mode puts a thread in the class it names.
func TestModesSetTheThread(t *testing.T) {
	for name, m := range modes {
		done := make(chan struct{})
		var attr *unix.SchedAttr
		var err error
		go func() {
			defer close(done)
			runtime.LockOSThread() // the thread ends with the goroutine
			if err = m.apply(0); err == nil {
				attr, err = unix.SchedGetAttr(0, 0)
			}
		}()
		<-done
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if attr.Policy != m.policy || attr.Nice != m.nice {
			t.Errorf("%s: policy %d nice %d, want %d %d", name, attr.Policy, attr.Nice, m.policy, m.nice)
		}
		// Before Linux 6.12 a fair-class thread has no slice of its own
		// (0); since, a thread without one reports the default.
		if m.slice != 0 && attr.Runtime != 0 && attr.Runtime != uint64(m.slice) {
			t.Errorf("%s: slice %d ns, want %v", name, attr.Runtime, m.slice)
		}
	}
}

// A short measurement gives samples and counts.
func TestMeasure(t *testing.T) {
	late, work, err := measure(modes["batch-slice"], 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(late) == 0 || work == 0 {
		t.Fatalf("%d samples, %d counted: want some of each", len(late), work)
	}
}
