package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/hashing"
	"github.com/arenabots/arena/sandbox/meter"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// compiling reports whether rt is compiling wasm now.
func compiling(rt *Runtime, wasm []byte) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	_, ok := rt.inflight[hashing.SHA256Hex(wasm)]
	return ok
}

// slowModule is a module wazero's compiler takes seconds of CPU over (its
// dominator pass is quadratic in the blocks of a function), salted so that
// no cache knows it.
func slowModule(salt int64, ifs int) []byte {
	return Echo{Turn: Cat(I64(salt), Drop, Repeat(Cat(I32(0), If, End), ifs))}.Module()
}

// One account's compile bombs do not hold the compiler: while two salted
// slow modules of account A compile (the second waiting for the first, one
// compile an account), a plain module from account B compiles at once, on
// a slot of its own.
func TestCompileIsFairAcrossAccounts(t *testing.T) {
	rt := newTestRuntime(t, Options{CompileSlots: 2})
	var grantedB time.Time
	rt.gate.granted = func(owner string) { // under the gate's lock
		if owner == "B" {
			grantedB = time.Now()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	salt := time.Now().UnixNano()
	bombs := [][]byte{slowModule(salt, 12000), slowModule(salt+1, 12000)}
	done := make(chan error, len(bombs))
	for _, b := range bombs {
		go func() {
			_, err := rt.CompileWith(ctx, b, CompileOptions{Owner: "A", Upload: true})
			done <- err
		}()
	}
	for !compiling(rt, bombs[0]) || !compiling(rt, bombs[1]) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the first bomb's child is at work
	start := time.Now()
	if _, err := rt.CompileWith(context.Background(), Echo{Globals: int(salt % 1000)}.Module(), CompileOptions{Owner: "B", Upload: true}); err != nil {
		t.Fatal(err)
	}
	if took := grantedB.Sub(start); took > 2*time.Second {
		t.Errorf("B's plain module started compiling %v after it was offered, behind A's two slow ones; want under 2 s", took)
	}
	t.Logf("B's module started compiling after %v and was compiled after %v", grantedB.Sub(start), time.Since(start))
	select {
	case err := <-done:
		t.Fatalf("a slow module of A compiled before B's: %v", err)
	default:
	}
	cancel()
	for range bombs {
		<-done
	}
}

// Every compile spends its owner's daily budget of compile CPU, refused ones
// too; past it the owner's compiles are refused (not as the module's fault)
// and other owners' go on.
func TestCompileBudgetPerAccount(t *testing.T) {
	// A budget that one compile spends: the child process alone takes
	// more CPU than this.
	rt := newTestRuntime(t, Options{CompileBudget: time.Millisecond})
	up := func(owner string, wasm []byte) error {
		_, err := rt.CompileWith(context.Background(), wasm, CompileOptions{Owner: owner, Upload: true})
		return err
	}
	good, other := Echo{Globals: 1}.Module(), Echo{Globals: 2}.Module()
	// A refusal at the door costs no compile CPU.
	if err := up("A", []byte("not wasm at all")); !IsRefused(err) {
		t.Fatalf("not wasm: %v, want a refusal", err)
	}
	if err := up("A", good); err != nil {
		t.Fatalf("A's first compile: %v", err)
	}
	if err := up("A", other); !errors.Is(err, ErrCompileBudget) || IsRefused(err) {
		t.Fatalf("A's compile past its budget: %v, want ErrCompileBudget, not a refusal", err)
	}
	if err := up("A", good); err != nil {
		t.Fatalf("A's module compiled before, past the budget: %v, want it from the cache", err)
	}
	if err := up("B", other); err != nil {
		t.Fatalf("B's compile: %v", err)
	}
	// A module the compiler refuses spends the budget too.
	bomb := slowModule(time.Now().UnixNano(), 8000)
	saved := CompileTimeLimit
	CompileTimeLimit = 100 * time.Millisecond
	err := up("C", bomb)
	CompileTimeLimit = saved
	if !IsRefused(err) {
		t.Fatalf("C's slow module: %v, want a refusal", err)
	}
	if err := up("C", Echo{Globals: 3}.Module()); !errors.Is(err, ErrCompileBudget) {
		t.Fatalf("C's compile after a refused one: %v, want ErrCompileBudget", err)
	}
	// A compile queued behind the account's running one is turned away
	// once that one has spent the budget (cancelled, here: its CPU still
	// counts).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := slowModule(time.Now().UnixNano()+1, 12000)
	first := make(chan error, 1)
	go func() {
		_, err := rt.CompileWith(ctx, slow, CompileOptions{Owner: "D", Upload: true})
		first <- err
	}()
	for !compiling(rt, slow) {
		time.Sleep(time.Millisecond)
	}
	second := make(chan error, 1)
	go func() { second <- up("D", Echo{Globals: 4}.Module()) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	<-first
	if err := <-second; !errors.Is(err, ErrCompileBudget) {
		t.Fatalf("D's compile queued behind one that spent the budget: %v, want ErrCompileBudget", err)
	}
}

// newTestRuntime is a Runtime of its own, closed at the test's end.
func newTestRuntime(t *testing.T, opt Options) *Runtime {
	t.Helper()
	if opt.CacheDir == "" {
		opt.CacheDir = t.TempDir()
	}
	rt, err := NewRuntime(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

// A module accepted once is accepted everywhere: the compiler's CPU time
// depends on the machine and its load (BenchmarkCompileCPU), so an upload
// is held to CompileTimeLimit and every other compile, of a module accepted
// before, to CompileMargin times that. Here the upload's limit is set just
// above and then well below a module's compile time: accepted, the module
// compiles again on an empty cache (a new worker) with the margin to spare;
// refused at upload, it is not refused for a match, which gets the wider
// limit, on the same Runtime (the upload's refusal is not served to it).
func TestCompileLimitMarginOverUpload(t *testing.T) {
	bomb := slowModule(time.Now().UnixNano(), 4000)
	cpu := compileCPU(t, bomb)
	saved := CompileTimeLimit
	defer func() { CompileTimeLimit = saved }()

	CompileTimeLimit = cpu * 5 / 4
	upload := newTestRuntime(t, Options{})
	if _, err := upload.CompileWith(context.Background(), bomb, CompileOptions{Owner: "A", Upload: true}); err != nil {
		t.Fatalf("upload with the limit at 1.25 times the compile's %v: %v", cpu, err)
	}
	// A worker on a machine that compiles 3 times slower: as if the limit
	// were a third.
	CompileTimeLimit = cpu * 5 / 12
	worker := newTestRuntime(t, Options{})
	if _, err := worker.Compile(context.Background(), bomb); err != nil {
		t.Fatalf("the accepted module on an empty cache, 3 times slower: %v", err)
	}

	CompileTimeLimit = cpu / 3
	rt := newTestRuntime(t, Options{})
	if _, err := rt.CompileWith(context.Background(), bomb, CompileOptions{Owner: "A", Upload: true}); !IsRefused(err) || !strings.Contains(err.Error(), "CPU time") {
		t.Fatalf("upload with the limit at a third of the compile's %v: %v, want refused for its time", cpu, err)
	}
	if _, err := rt.CompileWith(context.Background(), bomb, CompileOptions{Owner: "A", Upload: true}); !IsRefused(err) {
		t.Fatalf("the same upload again: %v, want the refusal remembered", err)
	}
	if _, err := rt.Compile(context.Background(), bomb); err != nil {
		t.Fatalf("the same bytes for a match, with the margin: %v", err)
	}
}

// compileCPU is the CPU time the compiler's child takes over wasm, on a
// cache of its own.
func compileCPU(tb testing.TB, wasm []byte) time.Duration {
	tb.Helper()
	rt, err := NewRuntime(context.Background(), Options{CacheDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	defer rt.Close(context.Background())
	metered, err := meter.Instrument(wasm)
	if err != nil {
		tb.Fatal(err)
	}
	size, err := rt.compileInChild(context.Background(), metered, time.Hour)
	if err != nil {
		tb.Fatal(err)
	}
	return size.cpu
}

// The compiler's CPU time over the same module, compiled again and again
// on empty caches, n at once: how far it moves with the load.
//
//	go test -run XXX -bench CompileCPU -benchtime=3x ./sandbox/
func BenchmarkCompileCPU(b *testing.B) {
	for _, ifs := range []int{7000, 20000} {
		b.Run(fmt.Sprint(ifs, " ifs"), func(b *testing.B) {
			var lo, hi time.Duration
			for i := range b.N {
				c := compileCPU(b, slowModule(time.Now().UnixNano()+int64(i), ifs))
				if i == 0 || c < lo {
					lo = c
				}
				hi = max(hi, c)
			}
			b.ReportMetric(lo.Seconds(), "min-cpu-s")
			b.ReportMetric(hi.Seconds(), "max-cpu-s")
		})
	}
}
