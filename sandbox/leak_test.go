package sandbox

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// resources is what a leak would show in.
type resources struct {
	goroutines int
	heap       uint64 // live heap after a GC
	fds        int    // open file descriptors
	vmSize     uint64 // virtual memory, where leaked linear memories would stay mapped
}

func measure(t *testing.T) resources {
	t.Helper()
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	r := resources{goroutines: runtime.NumGoroutine(), heap: ms.HeapAlloc, fds: len(fds)}
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range bytes.Split(status, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("VmSize:")); ok {
				kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
				r.vmSize = kb << 10
			}
		}
	}
	return r
}

// After 1,000 hostile runs in one process, goroutines, heap, file
// descriptors and mappings are back where they were.
func TestNoLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 hostile runs: skipped with -short")
	}
	goBot := probe(t, "")
	exitStart := probe(t, "exitstart")
	trap := compileBytes(t, wasmtest.Echo{FaultOnRead: 1, Fault: "unreachable"}.Module())
	recurse := compileBytes(t, wasmtest.Echo{FaultOnRead: 1, Fault: "recurse"}.Module())
	echo := compileBytes(t, wasmtest.Echo{}.Module())
	// Modules of the corpus of cost model 2 that hold host memory when stopped:
	// a table grown to its share, memory grown and touched, deep recursion.
	tableGrow := compileBytes(t, wasmtest.Echo{Table: true, Turn: wasmtest.Forever(wasmtest.RefNull, wasmtest.I32(100_000), wasmtest.TableGrow, wasmtest.Drop)}.Module())
	memGrow := compileBytes(t, wasmtest.Echo{Turn: wasmtest.Forever(wasmtest.I32(1), wasmtest.MemoryGrow, wasmtest.I32(16), []byte{0x74}, wasmtest.I32(1), wasmtest.Store(0))}.Module())
	deep := compileBytes(t, wasmtest.Echo{TurnLocals: 1000, Turn: wasmtest.Call(wasmtest.TurnFunc)}.Module())
	runs := []struct {
		mod    *Module
		tank   func() *Tank
		obs    []string
		limits Limits
	}{
		{goBot, protocolTank, []string{`{"cmd":"loop"}`}, Limits{}},
		{goBot, protocolTank, []string{`{"cmd":"echo"}`, `{"cmd":"exit"}`}, Limits{}},
		{goBot, protocolTank, []string{`{"cmd":"nonewline"}`}, Limits{}},
		{goBot, protocolTank, []string{`{"cmd":"closeout"}`}, Limits{}},
		{goBot, bigTank, []string{`{"cmd":"grow"}`}, Limits{}},
		{goBot, protocolTank, []string{`{"cmd":"echo"}`, `{"cmd":"echo"}`}, Limits{}}, // stopped while blocked in a read
		{exitStart, protocolTank, []string{`{"cmd":"echo"}`}, Limits{}},
		{trap, protocolTank, []string{`{}`}, Limits{}},
		{recurse, protocolTank, []string{`{}`}, Limits{}},
		{echo, protocolTank, []string{`{}`, `{}`}, Limits{}},
		{goBot, bigTank, []string{`{"cmd":"loop"}`}, Limits{CPU: 5 * time.Millisecond}}, // the backstop
		{tableGrow, protocolTank, []string{`{}`}, Limits{}},
		{memGrow, protocolTank, []string{`{}`}, Limits{}},
		{deep, protocolTank, []string{`{}`}, Limits{}},
	}
	warm := func(n int) {
		for i := 0; i < n; i++ {
			r := runs[i%len(runs)]
			in, err := testRT.Start(context.Background(), r.mod, Config{Tank: r.tank(), Stderr: &bot.Log{}, Limits: r.limits})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range r.obs {
				in.Ask(context.Background(), obsWithFuel(o))
			}
			in.Stop()
		}
	}
	warm(2 * len(runs))
	before := measure(t)
	start := time.Now()
	warm(1000)
	elapsed := time.Since(start)
	after := measure(t)
	t.Logf("1,000 runs in %v; before %+v, after %+v", elapsed, before, after)
	if after.goroutines > before.goroutines+2 {
		t.Errorf("goroutines: %d before, %d after", before.goroutines, after.goroutines)
	}
	if after.heap > before.heap+32<<20 {
		t.Errorf("live heap: %d MiB before, %d MiB after", before.heap>>20, after.heap>>20)
	}
	if after.fds > before.fds+2 {
		t.Errorf("file descriptors: %d before, %d after", before.fds, after.fds)
	}
	if after.vmSize > before.vmSize+2<<30 {
		t.Errorf("virtual memory: %d MiB before, %d MiB after", before.vmSize>>20, after.vmSize>>20)
	}
}
