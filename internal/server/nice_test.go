//go:build linux

package server_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
)

// niceOfThreads reads the nice value of every thread of this process.
func niceOfThreads(t *testing.T) map[int]int {
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
		if n, err := strconv.Atoi(fields[16]); err == nil {
			out[tid] = n
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
	for n := 0; n < 4; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d matches finished within 2 minutes, want 4", n)
		}
		n = finishedMatches(t, r.URL)
	}
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
