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
	. "github.com/arenabots/arena/sandbox/wasmtest"
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
	a, err := rt.Compile(ctx, Echo{Globals: 1}.Module())
	if err != nil {
		t.Fatal(err)
	}
	in, err := rt.Start(ctx, a, Config{Tank: protocolTank()})
	if err != nil {
		t.Fatal(err)
	}
	ask(in)
	b, err := rt.Compile(ctx, Echo{Globals: 2}.Module())
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
	b2, err := rt.Compile(ctx, Echo{Globals: 2}.Module())
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

// localsBomb is a module of n functions that each declare 50,000 i32
// locals in one group (5 bytes), which wazero's decoded module keeps at 8
// bytes a local: 400 KB kept for 5 bytes of module. variant changes a
// global's value, to make distinct modules of one shape.
func localsBomb(n int, variant int32) []byte {
	sec := func(id byte, c []byte) []byte { return Cat([]byte{id}, ULEB(uint64(len(c))), c) }
	vec := func(n int, items ...[]byte) []byte { return Cat(ULEB(uint64(n)), Cat(items...)) }
	body := func(locals []byte) []byte {
		b := Cat(locals, End)
		return Cat(ULEB(uint64(len(b))), b)
	}
	code := body([]byte{0}) // _start: no locals
	for range n {
		code = Cat(code, body([]byte{1, 0xd0, 0x86, 0x03, 0x7f})) // 50,000 x i32
	}
	return Cat([]byte{0, 'a', 's', 'm', 1, 0, 0, 0},
		sec(1, vec(1, []byte{0x60, 0, 0})),
		sec(3, vec(n+1, make([]byte, n+1))),
		sec(5, vec(1, []byte{0, 1})),
		sec(6, vec(1, []byte{0x7f, 0}, I32(variant), End)),
		sec(7, vec(2, Name("memory"), []byte{2, 0}, Name("_start"), []byte{0, 0})),
		sec(10, vec(n+1, code)))
}

// TestModulesCountedAtWhatTheyKeep: the compiler's child measures the
// machine code it made and the decoded module it keeps, and a module counts
// both against CompiledBytes. A Go bot's code is about 3.2 times its
// metered module; a module of 80 functions of 50,000 locals each is 700
// bytes that keep 32 MB decoded (the red team's, which was counted at 30 KB
// when the decoded module was estimated from the module's size).
func TestModulesCountedAtWhatTheyKeep(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the child measures its code in /proc/self/smaps")
	}
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	goBot, err := os.ReadFile(GoBuild(t, filepath.Join("testdata", "trivial"), ""))
	if err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	for _, c := range []struct {
		name                   string
		wasm                   []byte
		minCode, maxCode       float64 // bytes of machine code per metered byte
		minDecoded, maxDecoded int64   // bytes
	}{
		{"go", goBot, 2, 6, 2 * mib, 20 * mib},
		{"echo", Echo{}.Module(), 0, 64, 0, mib},
		{"locals", localsBomb(80, 0), 0, 1 << 20, 30 * mib, 40 * mib},
	} {
		metered, err := meter.Instrument(c.wasm)
		if err != nil {
			t.Fatal(err)
		}
		size, err := rt.compileInChild(ctx, metered, CompileTimeLimit)
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(size.code) / float64(len(metered))
		t.Logf("%s: %d metered bytes, %d of machine code (%.2fx), %d decoded", c.name, len(metered), size.code, ratio, size.decoded)
		if size.code <= 0 || ratio < c.minCode || ratio > c.maxCode {
			t.Errorf("%s: %d bytes of machine code for %d metered; want %.0f to %.0f times", c.name, size.code, len(metered), c.minCode, c.maxCode)
		}
		if size.decoded < c.minDecoded || size.decoded > c.maxDecoded {
			t.Errorf("%s: %d bytes decoded; want %d to %d", c.name, size.decoded, c.minDecoded, c.maxDecoded)
		}
		m, err := rt.Compile(ctx, c.wasm)
		if err != nil {
			t.Fatal(err)
		}
		// Compile's child measured again: the live heap moves a little
		// from one process to the next.
		if want := residentCost(size, len(metered), len(m.packed)); m.cost < want*9/10-64<<10 || m.cost > want*11/10+64<<10 {
			t.Errorf("%s: counted %d bytes, want about %d (its code, decoded form and deflated copy)", c.name, m.cost, want)
		}
	}
}

// TestLocalsBombsAreBounded compiles distinct locals bombs into a Runtime
// bounded at 100 MiB: the live heap stays near the bound (each module keeps
// about 32 MiB), where counted at their size the bound held all of them.
func TestLocalsBombsAreBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the child measures its code in /proc/self/smaps")
	}
	ctx := context.Background()
	const bound = 100 << 20
	rt, err := NewRuntime(ctx, Options{CacheDir: t.TempDir(), CompiledBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	before := liveHeap()
	for v := range int32(8) {
		if _, err := rt.Compile(ctx, localsBomb(80, v)); err != nil {
			t.Fatal(err)
		}
	}
	grew := liveHeap() - before
	rt.mu.Lock()
	kept, counted := len(rt.compiled), rt.memBytes
	rt.mu.Unlock()
	t.Logf("8 modules compiled: %d kept, %d MiB counted, live heap grew %d MiB", kept, counted>>20, grew>>20)
	if counted > bound || grew > bound+bound/2 {
		t.Errorf("%d MiB counted and %d MiB more live heap; want both near the bound of %d MiB", counted>>20, grew>>20, bound>>20)
	}
}

func TestParseCompiledSize(t *testing.T) {
	for _, c := range []struct {
		out  string
		want compiledSize
	}{
		{"17825792 8912896\n", compiledSize{code: 17825792, decoded: 8912896}},
		{"0 0\n", compiledSize{}},
		{"-5 7", compiledSize{decoded: 7}},
		{"", compiledSize{}},
		{"hello 5", compiledSize{}},
		{"5", compiledSize{}},
	} {
		if got := parseCompiledSize(c.out); got != c.want {
			t.Errorf("parseCompiledSize(%q) = %+v, want %+v", c.out, got, c.want)
		}
	}
}
