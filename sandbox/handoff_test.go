//go:build linux

package sandbox

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// voluntarySwitches counts the times a thread of the process gave up its
// core to wait (a futex, a sleep).
func voluntarySwitches(t *testing.T) int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		t.Fatal(err)
	}
	return u.Nvcsw
}

// A quick question is a coroutine switch on the asking goroutine's thread
// and back: no thread waits for another. (When the guest kept a locked
// thread of its own, every question put the asking thread to sleep and
// woke the guest's, and back: at least two voluntary context switches a
// question, three quarters of a 31-49 µs round trip.) The process's other
// threads (the runtime's monitor, the collector) sleep now and then too,
// well under one time a question.
func TestQuickQuestionParksNoThread(t *testing.T) {
	const questions = 2000
	mod := compileFile(t, wasmtest.CBuild(t, filepath.Join("testdata", "c", "trivial.c")))
	in, err := testRT.Start(context.Background(), mod, Config{Tank: bigTank()})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Stop()
	ask := func() {
		if r := in.Ask(context.Background(), obsWithFuel(`{}`)); r.Status != protocol.OK {
			t.Fatalf("reply %+v", r)
		}
	}
	ask() // start-up
	before := voluntarySwitches(t)
	for range questions {
		ask()
	}
	n := voluntarySwitches(t) - before
	t.Logf("%d questions: %d voluntary context switches", questions, n)
	if n > questions/2 {
		t.Errorf("%d questions made %d voluntary context switches: the hand-off parks threads", questions, n)
	}
}
