//go:build linux

package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// threadNices reads the nice value of every thread of this process.
func threadNices(t *testing.T) map[int]int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, task := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%s/stat", task.Name()))
		if err != nil {
			continue // ended meanwhile
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		tid, _ := strconv.Atoi(task.Name())
		if n, err := strconv.Atoi(fields[16]); err == nil {
			out[tid] = n
		}
	}
	return out
}

// setNice reaches every thread, those that exist and those started after.
// (The test raises the nice value, which needs no privilege, so it runs
// anywhere; the process stays there, which no other test minds.)
func TestSetNiceSetsEveryThread(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	hold := func() {
		started := make(chan struct{})
		go func() {
			runtime.LockOSThread() // a thread of its own, kept until release
			close(started)
			<-release
		}()
		<-started
	}
	for range 3 {
		hold()
	}
	raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := min(20-raw+2, 19)
	if err := setNice(want); err != nil {
		t.Fatal(err)
	}
	hold() // a thread started after
	nices := threadNices(t)
	if len(nices) < 5 {
		t.Fatalf("%d threads, want at least 5 (the test's own and four held)", len(nices))
	}
	for tid, n := range nices {
		if n != want {
			t.Errorf("thread %d at nice %d, want %d", tid, n, want)
		}
	}
}
