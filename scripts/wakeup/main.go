//go:build linux

// Command wakeup measures how late a sleeping goroutine runs while two
// CPU-bound threads of a given scheduling class spin beside it: the
// question behind `arena serve --match-batch` (docs/performance.md,
// "--match-nice"), asked without a server. The spinners stand for two
// matches on locked threads, the sleeper for a request's goroutine.
//
//	go run ./scripts/wakeup -modes default,nice10,batch,slice20,batch-slice,all-short
//
// The modes alternate, each for -period, -rounds times over, so that a
// changing load on the machine falls on all of them. Each line gives the
// sleeper's lateness percentiles over its 1 ms sleeps, and how far the
// spinners counted: their share of the CPU.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// A mode is how the spinners (or, with all, every thread) are scheduled.
type mode struct {
	policy uint32
	nice   int32
	slice  time.Duration // sched_attr.sched_runtime; 0 for the default
	all    bool          // every thread of the process, not the spinners
}

var modes = map[string]mode{
	"default":     {},
	"nice10":      {nice: 10},
	"batch":       {policy: unix.SCHED_BATCH},
	"slice20":     {slice: 20 * time.Millisecond},
	"batch-slice": {policy: unix.SCHED_BATCH, slice: 20 * time.Millisecond},
	"all-short":   {slice: 100 * time.Microsecond, all: true},
}

// apply sets thread tid (0: the caller) to m's class.
func (m mode) apply(tid int) error {
	attr := unix.SchedAttr{Policy: m.policy, Nice: m.nice, Runtime: uint64(m.slice)}
	return unix.SchedSetAttr(tid, &attr, 0)
}

// applyAll sets every thread of the process to m's class; new threads
// start with their creator's.
func applyAll(m mode) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, task := range tasks {
		if tid, err := strconv.Atoi(task.Name()); err == nil {
			if err := m.apply(tid); err != nil && err != unix.ESRCH {
				return err
			}
		}
	}
	return nil
}

// spin counts on a locked thread in m's class until stop; the thread ends
// with it (no UnlockOSThread), so no other goroutine inherits the class.
func spin(m mode, stop *atomic.Bool, count *atomic.Int64, done chan<- error) {
	runtime.LockOSThread()
	if !m.all {
		if err := m.apply(0); err != nil {
			done <- err
			return
		}
	}
	n := int64(0)
	for !stop.Load() {
		n++
	}
	count.Add(n)
	done <- nil
}

func main() {
	list := flag.String("modes", "default,nice10,batch,slice20,batch-slice,all-short", "modes to compare: "+strings.Join(keys(), ","))
	rounds := flag.Int("rounds", 4, "times each mode is measured")
	period := flag.Duration("period", 3*time.Second, "how long one measurement lasts")
	flag.Parse()
	runtime.GOMAXPROCS(4) // the spinners hold two Ps; the sleeper needs one
	names := strings.Split(*list, ",")
	for _, n := range names {
		if _, ok := modes[n]; !ok {
			fmt.Fprintf(os.Stderr, "wakeup: unknown mode %q\n", n)
			os.Exit(2)
		}
	}
	late := map[string][]time.Duration{}
	work := map[string]int64{}
	for range *rounds {
		for _, n := range names {
			d, w, err := measure(modes[n], *period)
			if err != nil {
				fmt.Fprintf(os.Stderr, "wakeup: %s: %v\n", n, err)
				os.Exit(1)
			}
			late[n] = append(late[n], d...)
			work[n] += w
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("load average at the end: %s", load)
	for _, n := range names {
		l := late[n]
		slices.Sort(l)
		pct := func(p float64) float64 { return float64(l[int(float64(len(l)-1)*p)]) / 1e6 }
		fmt.Printf("%-12s n=%d late p50 %.3f p90 %.3f p99 %.3f max %.3f ms; spinners counted %.1f G\n",
			n, len(l), pct(.5), pct(.9), pct(.99), pct(1), float64(work[n])/1e9)
	}
}

// measure runs the spinners in m for d and returns the sleeper's lateness
// after each 1 ms sleep, and how far the spinners counted.
func measure(m mode, d time.Duration) ([]time.Duration, int64, error) {
	all := m
	if !m.all {
		all = mode{}
	}
	if err := applyAll(all); err != nil {
		return nil, 0, err
	}
	var stop atomic.Bool
	var count atomic.Int64
	done := make(chan error, 2)
	for range 2 {
		go spin(m, &stop, &count, done)
	}
	time.Sleep(100 * time.Millisecond)
	var late []time.Duration
	for end := time.Now().Add(d); time.Now().Before(end); {
		t0 := time.Now()
		time.Sleep(time.Millisecond)
		late = append(late, time.Since(t0)-time.Millisecond)
	}
	stop.Store(true)
	for range 2 {
		if err := <-done; err != nil {
			return nil, 0, err
		}
	}
	return late, count.Load(), nil
}

func keys() []string {
	var k []string
	for n := range modes {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}
