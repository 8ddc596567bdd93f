package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/arenabots/arena/sandbox/meter"
)

// wazero's compiler does not bound its own work: a valid module of 40 KB
// made of 8,000 empty ifs in one function takes it 12 s (its dominator pass
// is quadratic in the blocks of a function), and the limits at the door
// cannot rule out every such shape without refusing real bots. So the
// compiler runs in a child process (the same executable, started with
// compileChildEnv set) under a time and a memory limit, and leaves its
// output in wazero's compilation cache, where the parent's own compile then
// finds it. A module the child cannot compile within the limits is refused;
// a compiler that blows up takes down only the child.

// The limits of the child. Time is the child's CPU time, so that a loaded
// machine does not refuse what an idle one accepts (a Go bot of 3.8 MB takes
// about 3.5 s); the wall clock gets a generous backstop on top. A
// race-instrumented build is many times slower and bigger, so it gets more
// (race_on.go).
//
// CPU time still depends on the machine and its load (caches and cores
// shared with other work: one module took 9.8 to 11.0 s in three compiles
// on one machine within a minute, BenchmarkCompileCPU), so a module near
// the limit could be accepted once and refused the next time. An upload (and arena check,
// which says what an upload will say) is held to CompileTimeLimit; every
// other compile, of a module accepted before (a worker with an empty
// cache, a match, an eviction), gets CompileMargin times that, so that a
// module accepted once compiles again on any machine and load.
var (
	CompileTimeLimit   = 10 * time.Second * raceScale
	CompileMargin      = time.Duration(4)
	CompileWallLimit   = 10 * CompileTimeLimit    // of an upload's compile; others get CompileMargin times that
	CompileMemoryLimit = int64(1<<30) * raceScale // resident bytes
)

// timeRefusal is a module refused for the CPU time its compile took: the
// one refusal that depends on the limit the compile was held to.
type timeRefusal struct{ err *meter.Error }

func (t *timeRefusal) Error() string { return t.err.Error() }
func (t *timeRefusal) Unwrap() error { return t.err }

// ErrBusy is a compile stopped by the wall-clock backstop before the child
// had used its CPU time: the machine is overloaded, and the module may be
// fine. It is not a refusal, and not remembered.
var ErrBusy = errors.New("sandbox: the machine is too busy to compile the module now; try again later")

const (
	compileChildEnv = "ARENA_SANDBOX_COMPILE_CACHE" // the wazero cache directory
	compilePagesEnv = "ARENA_SANDBOX_COMPILE_PAGES" // the memory limit in pages
)

// The child's side: compile stdin into the cache and exit, before any other
// code of the program runs.
func init() {
	dir := os.Getenv(compileChildEnv)
	if dir == "" {
		return
	}
	os.Exit(compileChild(dir, os.Getenv(compilePagesEnv)))
}

func compileChild(dir, pagesArg string) int {
	pages, err := strconv.ParseUint(pagesArg, 10, 32)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bad %s %q", compilePagesEnv, pagesArg)
		return 2
	}
	wasm, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprint(os.Stderr, err)
		return 2
	}
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		fmt.Fprint(os.Stderr, err)
		return 2
	}
	rt := wazero.NewRuntimeWithConfig(ctx, runtimeConfig(uint32(pages)).WithCompilationCache(cache))
	heapBefore := liveHeap()
	if _, err := rt.CompileModule(ctx, wasm); err != nil {
		fmt.Fprint(os.Stderr, err)
		return 1 // the module does not validate
	}
	// What the compiled module keeps, which the parent's copy will keep
	// too, counted against its bound (Options.CompiledBytes): the machine
	// code, and wazero's decoded module, which a small module can make
	// large (a function's declared locals take 8 bytes each, declared in
	// a few bytes).
	size := compiledSize{code: machineCodeBytes(), decoded: liveHeap() - heapBefore}
	runtime.KeepAlive(wasm)
	fmt.Println(size)
	if err := rt.Close(ctx); err != nil {
		fmt.Fprint(os.Stderr, err)
		return 2
	}
	if err := cache.Close(ctx); err != nil {
		fmt.Fprint(os.Stderr, err)
		return 2
	}
	return 0
}

// compiledSize is the memory a compiled module keeps, as the compiler's
// child measured it: machine code and wazero's decoded module, in bytes; 0
// for what it could not measure. cpu is the CPU time the child took, which
// the parent measures.
type compiledSize struct {
	code, decoded int64
	cpu           time.Duration
}

func (c compiledSize) String() string { return fmt.Sprintf("%d %d", c.code, c.decoded) }

// parseCompiledSize reads the child's report; what does not parse counts as
// not measured.
func parseCompiledSize(out string) compiledSize {
	var c compiledSize
	if _, err := fmt.Sscanf(out, "%d %d", &c.code, &c.decoded); err != nil {
		return compiledSize{}
	}
	return compiledSize{code: max(c.code, 0), decoded: max(c.decoded, 0)}
}

// liveHeap is the Go heap that is reachable, after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// machineCodeBytes is the process's anonymous executable memory, which in
// the child is the module's machine code alone (the program's own code is
// mapped from its file); 0 where /proc/self/smaps is not to be had.
func machineCodeBytes() int64 {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	var total int64
	code := false
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && len(f[1]) == 4:
			// A mapping's header: range, permissions, offset, device,
			// inode, and a path unless it is anonymous.
			code = f[1] == "r-xp" && len(f) == 5
		case code && len(f) == 3 && f[0] == "Rss:":
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			total += kb << 10
		}
	}
	return total
}

// runtimeConfig is the wazero configuration of parent and child: they must
// agree for the child's output to be found in the cache.
func runtimeConfig(pages uint32) wazero.RuntimeConfig {
	return wazero.NewRuntimeConfigCompiler().
		WithMemoryLimitPages(pages).
		// DWARF stack traces cost about 0.5 s per trap on big modules (the
		// meter drops debug sections anyway: docs/fuel.md).
		WithDebugInfoEnabled(false).
		// Never WithCloseOnContextDone: it slows loops 7-20x. Instances are
		// stopped through the fuel check instead (instance.go).
		WithCloseOnContextDone(false)
}

// compileInChild compiles metered into the cache directory in a child
// process, within the limits (limit of CPU time), and returns what the
// compiled module keeps in memory as the child measured it, and the CPU time
// it took, also on failure. A module the compiler refuses or cannot compile
// within the limits is a *meter.Error.
func (r *Runtime) compileInChild(ctx context.Context, metered []byte, limit time.Duration) (compiledSize, error) {
	exe, err := os.Executable()
	if err != nil {
		return compiledSize{}, fmt.Errorf("sandbox: compiling in a child process: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), compileChildEnv+"="+r.wazeroDir, compilePagesEnv+"="+strconv.FormatUint(uint64(r.pages), 10))
	cmd.Stdin = bytes.NewReader(metered)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &limitedBuffer{b: &stdout, n: 64}
	cmd.Stderr = &limitedBuffer{b: &stderr, n: 4096}
	if err := cmd.Start(); err != nil {
		return compiledSize{}, fmt.Errorf("sandbox: compiling in a child process: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	wallLimit := CompileWallLimit
	if limit > CompileTimeLimit {
		wallLimit *= CompileMargin
	}
	deadline := time.NewTimer(wallLimit)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	// over is why the child was killed: a *meter.Error for the CPU and
	// memory limits, which a module goes over on any machine (a refusal,
	// remembered); another error when the compile was cancelled or the
	// wall clock ran out, which says nothing of the module and must not be
	// remembered: else a stranger who offers a module's bytes and hangs up
	// would block it for everyone.
	var over error
	for {
		select {
		case err := <-done:
			spent := compiledSize{}
			if ps := cmd.ProcessState; ps != nil {
				spent.cpu = ps.UserTime() + ps.SystemTime()
			}
			if over != nil {
				return spent, over
			}
			var exit *exec.ExitError
			switch {
			case err == nil:
				size := parseCompiledSize(stdout.String())
				size.cpu = spent.cpu
				return size, nil
			case errors.As(err, &exit) && exit.ExitCode() == 1:
				return spent, &meter.Error{Msg: "the module does not validate: " + strings.TrimSpace(stderr.String())}
			default:
				return spent, fmt.Errorf("sandbox: the compiler's child process failed: %v: %s", err, strings.TrimSpace(stderr.String()))
			}
		case <-deadline.C:
			over = fmt.Errorf("%w (no end after %v of wall-clock time, within the CPU limit)", ErrBusy, wallLimit)
			cmd.Process.Kill()
		case <-ctx.Done():
			over = fmt.Errorf("sandbox: compiling the module was cancelled: %w", context.Cause(ctx))
			cmd.Process.Kill()
		case <-tick.C:
			if over != nil {
				continue
			}
			rss, cpu := usage(cmd.Process.Pid)
			switch {
			case rss > CompileMemoryLimit:
				over = &meter.Error{Msg: fmt.Sprintf("the module is over a limit of the bot sandbox: compiling it takes more than %d MiB of memory (docs/sandbox.md lists the limits)", CompileMemoryLimit>>20)}
				cmd.Process.Kill()
			case cpu > limit:
				over = &timeRefusal{&meter.Error{Msg: fmt.Sprintf("the module is over a limit of the bot sandbox: compiling it takes more than %v of CPU time (docs/sandbox.md lists the limits)", limit)}}
				cmd.Process.Kill()
			}
		}
	}
}

// usage is the resident memory and the CPU time so far of process pid,
// zero when unknown (no /proc: then only the wall clock limits the child).
func usage(pid int) (rss int64, cpu time.Duration) {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 2 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			rss = pages * int64(os.Getpagesize())
		}
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// Fields after the command name, which is in parentheses and may
		// hold spaces: utime and stime are the 12th and 13th, in ticks of
		// 1/100 s (USER_HZ on Linux).
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 12 {
				u, _ := strconv.ParseInt(f[11], 10, 64)
				s, _ := strconv.ParseInt(f[12], 10, 64)
				cpu = time.Duration(u+s) * 10 * time.Millisecond
			}
		}
	}
	return rss, cpu
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
