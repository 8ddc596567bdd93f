//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/nice"
	"github.com/arenabots/arena/protocol"
)

// threadNiceOf reads a thread's nice value from /proc (field 19 of stat).
func threadNiceOf(t *testing.T, tid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	n, err := strconv.Atoi(fields[16])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A guest started for a context that asks for lowered threads runs on a
// thread that many levels below the process, which ends with the guest;
// its wall-clock backstop is widened by the same factor (nice.Slowdown).
func TestLoweredGuestThread(t *testing.T) {
	base := threadNiceOf(t, os.Getpid())
	ctx := nice.With(context.Background(), 3)
	in, err := testRT.Start(ctx, probe(t, ""), Config{Tank: protocolTank()})
	if err != nil {
		t.Fatal(err)
	}
	if r := in.Ask(context.Background(), obsWithFuel(`{"cmd":"echo"}`)); r.Status != protocol.OK {
		t.Fatalf("echo: %+v", r)
	}
	c := in.cpu.Load()
	if c == nil {
		t.Fatal("the guest has no thread clock")
	}
	tid := int(^(c.id >> 3)) // threadClock's encoding
	if got, want := threadNiceOf(t, tid), min(base+3, 19); got != want {
		t.Fatalf("guest thread %d at nice %d, want %d", tid, got, want)
	}
	if want := time.Duration(float64(DefaultLimits.Wall) * nice.Slowdown(3)); in.limits.Wall != want {
		t.Fatalf("wall backstop %v, want %v", in.limits.Wall, want)
	}
	in.Stop()
	if base == 19 || tid == os.Getpid() {
		return // nothing was lowered, or the main thread, which never ends
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lowered guest thread %d still exists 30 s after the guest ended", tid)
		}
	}
}
