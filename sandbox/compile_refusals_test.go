package sandbox

// The sixth red team (27 November): the memory a compiled module or a
// refusal keeps, compiles cancelled from outside, and an evicted module
// compiled again. The locals bomb is in evict_test.go.

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/meter"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// longExportName is a module whose one export has a name of size bytes of
// 0x01 (which a %q would write as four bytes each) and names a global that
// does not exist: the meter refuses it, quoting the name.
func longExportName(size, variant int) []byte {
	name := []byte(strings.Repeat("\x01", size))
	copy(name, strconv.Itoa(variant))
	exp := Cat([]byte{1}, Name(string(name)), []byte{3, 5}) // a global export, index 5
	return Cat([]byte{0, 'a', 's', 'm', 1, 0, 0, 0}, []byte{7}, ULEB(uint64(len(exp))), exp)
}

// TestRefusalMessagesAreBounded: the Runtime remembers its latest 4,096
// refusals with their messages, and the message goes back to the uploader.
// A message quoted the module's names whole: a 30 MiB name made a 120 MiB
// message, kept. Now a name is quoted to 64 bytes and a message cut at 1 KiB.
func TestRefusalMessagesAreBounded(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	for v := range 3 {
		_, err := rt.Compile(ctx, longExportName(1<<20, v))
		if !IsRefused(err) {
			t.Fatalf("a module whose export names a missing global: %v, want a refusal", err)
		}
		msg := err.Error()
		if len(msg) > maxRefusalMessage+16 || !strings.Contains(msg, "names global 5, which does not exist") || !strings.Contains(msg, "(1048576 bytes)") {
			t.Errorf("refusal of %d bytes: %.200q...; want under %d bytes, saying what is wrong and how long the name is", len(msg), msg, maxRefusalMessage)
		}
	}
	// A message cut anyway, from a source that quotes more.
	long := &meter.Error{Msg: strings.Repeat("é", 2000)}
	cut := boundRefusal(long).Error()
	if len(cut) > maxRefusalMessage+16 || !strings.HasSuffix(cut, "... (cut)") || !strings.HasPrefix(cut, "éé") || strings.ContainsRune(cut, '\uFFFD') {
		t.Errorf("boundRefusal of %d bytes gave %d bytes, ending %q", len(long.Msg), len(cut), cut[len(cut)-20:])
	}
}

// TestCancelledCompileIsNotARefusal: a compile cancelled through its
// context (an upload whose client hung up) was returned as a refusal and
// remembered, so the module was refused to everyone after: a stranger who
// knew a module's bytes (a house bot's, built from the public source) could
// block it by uploading them and hanging up.
func TestCancelledCompileIsNotARefusal(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Options{CacheDir: t.TempDir(), CompiledBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	victim, err := os.ReadFile(GoBuild(t, filepath.Join("testdata", "trivial"), ""))
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = rt.Compile(cctx, victim)
	if err == nil || IsRefused(err) {
		t.Fatalf("a compile cancelled before it began: %v (refused: %v); want an error that is not a refusal", err, IsRefused(err))
	}
	if _, err := rt.Compile(ctx, victim); err != nil {
		t.Errorf("the module offered again with a live context: %v (refused: %v)", err, IsRefused(err))
	}
}

// TestEvictedModuleCompilesAgainInTheChild: a module evicted from memory,
// whose machine code the disk cache's trim has removed, and then started
// again (a bot restarted mid-match) was compiled in the server's own
// process, outside the compiler's limits and with the caches locked, so
// that a cache hit of another module waited for it. A module of 8,000
// empty ifs takes wazero's compiler about a second (quadratic in blocks).
func TestEvictedModuleCompilesAgainInTheChild(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Options{CacheDir: t.TempDir(), CompiledBytes: 1, CacheBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	slow, err := rt.Compile(ctx, Echo{Turn: Repeat(Cat(I32(0), If, End), 8000)}.Module())
	if err != nil {
		t.Fatal(err)
	}
	in, err := rt.Start(ctx, slow, Config{Tank: protocolTank()})
	if err != nil {
		t.Fatal(err)
	}
	if r := in.Ask(ctx, obsWithFuel(`{}`)); r.Status != protocol.OK {
		t.Fatalf("%+v", r)
	}
	other := Echo{Globals: 7}.Module()
	if _, err := rt.Compile(ctx, other); err != nil { // evicts slow
		t.Fatal(err)
	}
	in.Stop() // its last instance: slow is closed
	trimCache(rt.cacheRoot, 1, time.Now().Add(cacheGrace+time.Minute))

	hit := make(chan time.Duration)
	go func() {
		time.Sleep(100 * time.Millisecond) // into the compile below
		start := time.Now()
		if _, err := rt.Compile(ctx, other); err != nil {
			t.Error(err)
		}
		hit <- time.Since(start)
	}()
	cpu0, start := processCPU(), time.Now()
	in2, err := rt.Start(ctx, slow, Config{Tank: protocolTank()})
	wall, cpu := time.Since(start), processCPU()-cpu0
	if err != nil {
		t.Fatal(err)
	}
	defer in2.Stop()
	if r := in2.Ask(ctx, obsWithFuel(`{}`)); r.Status != protocol.OK {
		t.Fatalf("the restarted bot: %+v", r)
	}
	waited := <-hit
	t.Logf("restart: %v of wall clock, %v of this process's CPU; a cache hit meanwhile waited %v", wall, cpu, waited)
	// The child's CPU is not this process's; a second is far above a load
	// from the disk cache and far below the compile.
	if cpu > time.Second*raceScale || waited > time.Second*raceScale {
		t.Errorf("the restart took %v of this process's CPU and held up a cache hit for %v: compiled in the parent", cpu, waited)
	}
}
