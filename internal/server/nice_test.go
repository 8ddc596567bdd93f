//go:build linux

package server_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
)

// niceOfThreads reads the nice value of every thread of this process.
func niceOfThreads(t *testing.T) map[int]int {
	t.Helper()
	return threadStat(t, 19)
}

// policyOfThreads reads the scheduling policy of every thread of this
// process (unix.SCHED_BATCH is 3).
func policyOfThreads(t *testing.T) map[int]int {
	t.Helper()
	return threadStat(t, 41)
}

// threadStat reads field n (counted from 1, as proc(5) does) of every
// thread's /proc stat line, a number.
func threadStat(t *testing.T, n int) map[int]int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		data, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
		if err != nil {
			continue // the thread ended meanwhile
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		// fields[0] is field 3, the state: the command (2) may hold spaces.
		if v, err := strconv.Atoi(fields[n-3]); err == nil {
			out[tid] = v
		}
	}
	return out
}

// With MatchNice, rated matches run on threads that many levels below the
// server's and are recorded as usual; the other threads stay at the
// process's own level.
func TestMatchNice(t *testing.T) {
	base := niceOfThreads(t)[os.Getpid()]
	want := min(base+3, 19) // at 19 nothing can be lowered: then this checks only that matches run
	r := start(t, store.SQLite, func(o *server.Options) {
		o.Games, o.Rest, o.MatchNice = []string{"dots-and-boxes"}, 0, 3
	})
	defer r.stop()
	// Matches run back to back: a lowered thread shows up while one runs.
	deadline := time.Now().Add(2 * time.Minute)
	for lowered := false; !lowered; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no thread at the lowered level within 2 minutes of matches")
		}
		for _, n := range niceOfThreads(t) {
			lowered = lowered || n == want
		}
	}
	waitFinished(t, r.URL, 4, deadline)
	// The rest of the process keeps its level. (Not the main thread as
	// such: a match may have run on it, which the runtime then parks for
	// good, lowered.)
	unlowered := 0
	for _, n := range niceOfThreads(t) {
		if n == base {
			unlowered++
		}
	}
	if unlowered == 0 {
		t.Fatalf("no thread left at the process's level %d", base)
	}
}

// With MatchBatch, rated matches run on batch threads at the server's own
// nice value, and are recorded as usual; the other threads stay as they
// were.
func TestMatchBatch(t *testing.T) {
	// The process's level, from a thread of the pool: the main thread may
	// have played a lowered match before (TestMatchNice) and been kept.
	runtime.LockOSThread()
	base := niceOfThreads(t)[unix.Gettid()]
	runtime.UnlockOSThread()
	r := start(t, store.SQLite, func(o *server.Options) {
		o.Games, o.Rest, o.MatchBatch = []string{"dots-and-boxes"}, 0, true
	})
	defer r.stop()
	deadline := time.Now().Add(2 * time.Minute)
	for batch := false; !batch; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no batch thread at the process's level within 2 minutes of matches")
		}
		nices := niceOfThreads(t)
		for tid, p := range policyOfThreads(t) {
			if n, ok := nices[tid]; ok && p == unix.SCHED_BATCH && n == base {
				batch = true
			}
		}
	}
	waitFinished(t, r.URL, 4, deadline)
	others := 0
	for _, p := range policyOfThreads(t) {
		if p == unix.SCHED_NORMAL {
			others++
		}
	}
	if others == 0 {
		t.Fatal("no thread left at SCHED_NORMAL")
	}
}

// waitFinished waits until n matches have finished, until deadline.
func waitFinished(t *testing.T, url string, n int, deadline time.Time) {
	t.Helper()
	for done := 0; done < n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d matches finished in time, want %d", done, n)
		}
		done = finishedMatches(t, url)
	}
}
