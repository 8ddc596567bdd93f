package meter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// A testBot is a small program in testdata, the same task in each language:
// read n from stdin, print facts about the primes below n, call
// arena.fuel_left and print it to stderr.
type testBot struct {
	name  string
	build func(out string) *exec.Cmd
	want  string // stdout for the input "100000\n"
	once  sync.Once
	wasm  []byte
	err   error
}

var testBots = []*testBot{
	{name: "go", build: func(out string) *exec.Cmd {
		cmd := exec.Command("go", "build", "-o", out, "./testdata/gobot")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		return cmd
	}, want: `{"count":9592,"digits":"1:2387 2:1 3:2402 5:1 7:2411 9:2390","last":99991}` + "\n"},
	{name: "c", build: func(out string) *exec.Cmd {
		return exec.Command("clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-o", out, "testdata/cbot/bot.c")
	}, want: `{"count":9592,"last":99991}` + "\n"},
	{name: "rust", build: func(out string) *exec.Cmd {
		// Debian's rustc has the wasm32-wasi standard library; rustup's may not.
		rustc := "/usr/bin/rustc"
		if _, err := os.Stat(rustc); err != nil {
			rustc = "rustc"
		}
		return exec.Command(rustc, "--target", "wasm32-wasi", "-O", "-o", out, "testdata/rustbot/main.rs")
	}, want: `{"count":9592,"last":99991}` + "\n"},
}

// wasmOf builds the bot once per test binary; a missing toolchain fails the
// test with the script that installs it.
func (tb *testBot) wasmOf(t testing.TB) []byte {
	t.Helper()
	tb.once.Do(func() {
		dir, err := os.MkdirTemp("", "meter-bot")
		if err != nil {
			tb.err = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "bot.wasm")
		cmd := tb.build(out)
		if _, err := exec.LookPath(cmd.Path); err != nil {
			tb.err = fmt.Errorf("no toolchain for the %s bot (%v): run scripts/install-toolchains.sh as root", tb.name, err)
			return
		}
		if msg, err := cmd.CombinedOutput(); err != nil {
			tb.err = fmt.Errorf("%s: %v\n%s", cmd, err, msg)
			return
		}
		tb.wasm, tb.err = os.ReadFile(out)
	})
	if tb.err != nil {
		t.Fatal(tb.err)
	}
	return tb.wasm
}

func buildGoBot(t testing.TB) []byte { return testBots[0].wasmOf(t) }

// runGoBot runs the Go bot (instrumented or not) with input on stdin and
// returns its stdout and the fuel it used.
func runBot(t *testing.T, wasm []byte, input string) (stdout string, used int64) {
	t.Helper()
	var out, errOut bytes.Buffer
	tk := &tank{slice: 1_000_000, left: 1 << 40}
	cfg := wazero.NewModuleConfig().WithStdin(strings.NewReader(input)).WithStdout(&out).WithStderr(&errOut)
	mod, err := runPlain(t, wasm, tk, cfg)
	var exit *sys.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 0) {
		t.Fatalf("bot failed: %v\nstderr: %s", err, errOut.String())
	}
	if !strings.HasPrefix(errOut.String(), "fuel_left ") {
		t.Errorf("stderr = %q, want the fuel_left line", errOut.String())
	}
	return out.String(), tk.used(mod)
}

// Real Go, C and Rust programs run the same instrumented, and their fuel is
// the same on every run.
func TestRealBots(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	for _, tb := range testBots {
		t.Run(tb.name, func(t *testing.T) {
			wasm := tb.wasmOf(t)
			metered, err := Instrument(wasm)
			if err != nil {
				t.Fatal(err)
			}
			const input = "100000\n"
			if got, _ := runBot(t, wasm, input); got != tb.want {
				t.Fatalf("unmetered bot printed %q, want %q", got, tb.want)
			}
			got, fuel := runBot(t, metered, input)
			if got != tb.want {
				t.Fatalf("metered bot printed %q, want %q", got, tb.want)
			}
			// A sieve to 100,000 takes a few hundred thousand instructions at
			// least; the Go runtime alone spends about 0.7M at start-up.
			if fuel < 300_000 || fuel > 100_000_000 {
				t.Errorf("bot used %d fuel, outside the plausible range", fuel)
			}
			if _, again := runBot(t, metered, input); again != fuel {
				t.Errorf("second run used %d fuel, first %d: not deterministic", again, fuel)
			}
			if _, more := runBot(t, metered, "200000\n"); more <= fuel {
				t.Errorf("n=200000 used %d fuel, n=100000 used %d", more, fuel)
			}
			t.Logf("%s bot: %d bytes, %d bytes metered, %d fuel", tb.name, len(wasm), len(metered), fuel)
		})
	}
}

// BenchmarkInstrumentGoBot measures the pass on a real Go wasip1 module.
func BenchmarkInstrumentGoBot(b *testing.B) {
	wasm := buildGoBot(b)
	b.SetBytes(int64(len(wasm)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Instrument(wasm); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGoBotRun runs the Go bot (start-up and a sieve to 3,000,000) on
// wazero's compiler, plain and metered in turns, and reports the ratio of
// the CPU time of the running thread: on a busy machine that is steadier
// than wall time.
func BenchmarkGoBotRun(b *testing.B) {
	wasm := buildGoBot(b)
	metered, err := Instrument(wasm)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	hostModules(ctx, b, rt, &tank{slice: 1_000_000, left: 1 << 62})
	var compiled [2]wazero.CompiledModule
	for i, w := range [][]byte{wasm, metered} {
		if compiled[i], err = rt.CompileModule(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var cpu [2]time.Duration
	var out bytes.Buffer
	for b.Loop() {
		for i, c := range compiled {
			out.Reset()
			cfg := wazero.NewModuleConfig().WithStdin(strings.NewReader("3000000\n")).WithStdout(&out).WithName("")
			start := threadCPU()
			_, err := rt.InstantiateModule(ctx, c, cfg)
			cpu[i] += threadCPU() - start
			var exit *sys.ExitError
			if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 0) {
				b.Fatal(err)
			}
			if want := `"count":216816`; !strings.Contains(out.String(), want) {
				b.Fatalf("bot printed %q, want %s", out.String(), want)
			}
		}
	}
	b.ReportMetric(float64(cpu[0].Nanoseconds())/float64(b.N), "plain-cpu-ns/op")
	b.ReportMetric(float64(cpu[1].Nanoseconds())/float64(b.N), "metered-cpu-ns/op")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "metered/plain")
}

// threadCPU is the CPU time the calling OS thread has used.
func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD on Linux
	var u syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
