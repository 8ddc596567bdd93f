//go:build linux

package nice

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A function run lowered sees its thread n levels below the process, and
// that thread ends with it: it never goes back to the runtime's pool.
func TestRunLowersAThreadThatEnds(t *testing.T) {
	runtime.LockOSThread()
	base, err := threadNice()
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatal(err)
	}
	var got, tid int
	Run(3, func() {
		got, err = threadNice()
		tid = unix.Gettid()
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := min(base+3, 19); got != want {
		t.Fatalf("lowered thread at nice %d, want %d", got, want)
	}
	if base == 19 {
		// Nothing could be lowered, so the thread went back to the pool.
		t.Log("the test runs at nice 19: whether a lowered thread ends is not checked")
		return
	}
	if tid == os.Getpid() {
		// The main thread cannot exit: the runtime parks it for good
		// instead, which also keeps it from other goroutines.
		t.Log("f ran on the main thread, which the runtime parks for good")
		return
	}
	task := fmt.Sprintf("/proc/self/task/%d", tid)
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, err := os.Stat(task); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d still exists 30 s after its goroutine ended", tid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The caller's own thread was not touched.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if n, _ := threadNice(); n != base {
		t.Fatalf("calling thread at nice %d, want %d", n, base)
	}
}

// Lowering stops at 19, and 0 levels lowers nothing.
func TestLowerBounds(t *testing.T) {
	Run(100, func() {
		if n, _ := threadNice(); n != 19 {
			t.Errorf("lowered by 100: nice %d, want 19", n)
		}
	})
	if Lower(0) || Lower(-3) {
		t.Fatal("Lower(0) or Lower(-3) reported a change")
	}
	ran := false
	Run(0, func() { ran = true })
	if !ran {
		t.Fatal("Run(0, f) did not call f")
	}
}

func TestContext(t *testing.T) {
	ctx := context.Background()
	if From(ctx) != 0 || From(With(ctx, 0)) != 0 || From(With(ctx, -2)) != 0 {
		t.Fatal("no levels asked, yet From is not 0")
	}
	if From(With(ctx, 7)) != 7 {
		t.Fatal("From(With(ctx, 7)) != 7")
	}
}

func TestSlowdown(t *testing.T) {
	// The kernel's weights: 1024 at nice 0, 110 at 10, 15 at 19.
	for _, c := range []struct {
		n    int
		want float64
	}{{0, 1}, {-1, 1}, {10, 1024.0 / 110}, {19, 1024.0 / 15}, {Batch, 1}, {Batch + 10, 1024.0 / 110}} {
		if got := Slowdown(c.n); got < c.want*0.85 || got > c.want*1.15 {
			t.Errorf("Slowdown(%d) = %.2f, want about %.2f", c.n, got, c.want)
		}
	}
}

// Batch makes a lowered thread a batch thread with a long slice, with or
// without nice levels, and keeps the levels' meaning.
func TestBatch(t *testing.T) {
	runtime.LockOSThread()
	base, err := threadNice()
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n, nice int
	}{{Batch, base}, {Batch + 3, min(base+3, 19)}} {
		var attr *unix.SchedAttr
		var got int
		Run(c.n, func() {
			attr, err = unix.SchedGetAttr(0, 0)
			got, _ = threadNice()
		})
		if err != nil {
			t.Fatal(err)
		}
		if attr.Policy != unix.SCHED_BATCH || got != c.nice {
			t.Errorf("Run(Batch+%d): policy %d at nice %d, want SCHED_BATCH (%d) at %d", c.n-Batch, attr.Policy, got, unix.SCHED_BATCH, c.nice)
		}
		// Before Linux 6.12 a fair-class thread has no slice of its own
		// and sched_getattr reports none.
		if attr.Runtime != 0 && attr.Runtime != uint64(batchSlice) {
			t.Errorf("Run(Batch+%d): slice %v, want %v", c.n-Batch, time.Duration(attr.Runtime), batchSlice)
		}
	}
	// The calling thread was not touched.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if attr, err := unix.SchedGetAttr(0, 0); err != nil || attr.Policy != unix.SCHED_NORMAL {
		t.Fatalf("calling thread: %+v, %v; want SCHED_NORMAL", attr, err)
	}
	if From(With(context.Background(), Batch)) != Batch {
		t.Fatal("From(With(ctx, Batch)) != Batch")
	}
}
