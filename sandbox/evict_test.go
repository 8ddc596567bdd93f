package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// moduleState reads an eviction's bookkeeping under its locks.
func moduleState(r *Runtime, m *Module) (inMap, open bool, users int) {
	r.mu.Lock()
	inMap = r.compiled[m.SHA256] == m
	r.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	return inMap, m.compiled != nil, m.users
}

// TestCompiledModulesBounded bounds the compiled modules in memory to one
// (CompiledBytes of 1): compiling a second module evicts the first, which
// keeps running its instance and is closed only when that ends; starting
// it again compiles it again and evicts the other in turn.
func TestCompiledModulesBounded(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Options{CacheDir: t.TempDir(), CompiledBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	ask := func(in *Instance) {
		t.Helper()
		if r := in.Ask(ctx, obsWithFuel(`{}`)); r.Status != protocol.OK {
			t.Fatalf("reply %+v", r)
		}
	}
	waitClosed := func(m *Module) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for _, open, _ := moduleState(rt, m); open; _, open, _ = moduleState(rt, m) {
			if time.Now().After(deadline) {
				t.Fatal("an evicted module with no instance left is still open")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	a, err := rt.Compile(ctx, wasmtest.Echo{Globals: 1}.Module())
	if err != nil {
		t.Fatal(err)
	}
	in, err := rt.Start(ctx, a, Config{Tank: protocolTank()})
	if err != nil {
		t.Fatal(err)
	}
	ask(in)
	b, err := rt.Compile(ctx, wasmtest.Echo{Globals: 2}.Module())
	if err != nil {
		t.Fatal(err)
	}
	if inMap, open, users := moduleState(rt, a); inMap || !open || users != 1 {
		t.Fatalf("a after b's compile: in the map %v, open %v, users %d; want evicted, open, 1 user", inMap, open, users)
	}
	ask(in) // the running instance plays on
	in.Stop()
	waitClosed(a)
	if inMap, _, _ := moduleState(rt, b); !inMap {
		t.Fatal("b is not in the map")
	}
	// A bot restarted mid-match on the evicted module: compiled again.
	in2, err := rt.Start(ctx, a, Config{Tank: protocolTank()})
	if err != nil {
		t.Fatal(err)
	}
	ask(in2)
	if inMap, open, _ := moduleState(rt, a); !inMap || !open {
		t.Fatalf("a started again: in the map %v, open %v", inMap, open)
	}
	if inMap, open, _ := moduleState(rt, b); inMap || open {
		t.Fatalf("b, unused, after a came back: in the map %v, open %v; want evicted and closed", inMap, open)
	}
	in2.Stop()
	// Compiling b again gives a working module.
	b2, err := rt.Compile(ctx, wasmtest.Echo{Globals: 2}.Module())
	if err != nil {
		t.Fatal(err)
	}
	in3, err := rt.Start(ctx, b2, Config{Tank: protocolTank()})
	if err != nil {
		t.Fatal(err)
	}
	ask(in3)
	in3.Stop()
	rt.mu.Lock()
	n, bytes := len(rt.compiled), rt.memBytes
	rt.mu.Unlock()
	if n != 1 || bytes != b2.cost {
		t.Fatalf("%d modules, %d bytes kept; want b alone, %d bytes", n, bytes, b2.cost)
	}
}

// TestModulesCountedByTheirMachineCode: the compiler's child measures the
// machine code it made, and a module counts that against CompiledBytes. A
// Go bot's code is about 3.3 times its metered module (docs/performance.md,
// "Memory"); a tiny module's takes a page or a few.
func TestModulesCountedByTheirMachineCode(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the child measures its code in /proc/self/smaps")
	}
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	goBot, err := os.ReadFile(wasmtest.GoBuild(t, filepath.Join("testdata", "trivial"), ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		wasm     []byte
		min, max float64 // code bytes per metered byte
	}{
		{"go", goBot, 2, 6},
		{"echo", wasmtest.Echo{}.Module(), 0, 64},
	} {
		metered, err := meter.Instrument(c.wasm)
		if err != nil {
			t.Fatal(err)
		}
		code, err := rt.compileInChild(ctx, metered)
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(code) / float64(len(metered))
		t.Logf("%s: %d metered bytes, %d bytes of machine code (%.2fx)", c.name, len(metered), code, ratio)
		if code <= 0 || ratio < c.min || ratio > c.max {
			t.Errorf("%s: %d bytes of machine code for %d metered; want %.0f to %.0f times", c.name, code, len(metered), c.min, c.max)
		}
		m, err := rt.Compile(ctx, c.wasm)
		if err != nil {
			t.Fatal(err)
		}
		if want := residentCost(code, len(metered), len(m.packed)); m.cost != want {
			t.Errorf("%s: counted %d bytes, want %d (its code, decoded form and deflated copy)", c.name, m.cost, want)
		}
	}
}
