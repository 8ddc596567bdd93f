// Package wasmtest builds the real WebAssembly modules the sandbox's tests and
// benchmarks run: Go programs (GOOS=wasip1), C programs (clang and wasi-libc,
// when installed) and small modules assembled byte by byte.
package wasmtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"
)

// Builds are kept in one directory per user, named by a hash of the sources
// and flags, so repeated test runs reuse them and a changed source rebuilds.
var (
	buildMu sync.Mutex
	outDir  = filepath.Join(os.TempDir(), fmt.Sprintf("arena-wasmtest-%d", os.Getuid()))
)

// GoBuild builds the Go main package in dir for GOOS=wasip1 and returns the
// path of the module. ldflags may set variables (-X main.mode=...).
func GoBuild(tb testing.TB, dir, ldflags string) string {
	tb.Helper()
	key := hashDir(tb, dir, "go", runtime.Version(), ldflags)
	return cached(tb, key, func(out string) *exec.Cmd {
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, "-ldflags", ldflags, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		return cmd
	})
}

// HasC reports whether clang can build for wasm32-wasi here, and why not.
func HasC() (bool, string) {
	if _, err := exec.LookPath("clang"); err != nil {
		return false, "clang not installed (apt-get install -y clang lld wasi-libc libclang-rt-14-dev-wasm32, or scripts/install-toolchains.sh)"
	}
	if _, err := os.Stat("/usr/lib/wasm32-wasi/libc.a"); err != nil {
		return false, "wasi-libc not installed (apt-get install -y wasi-libc libclang-rt-14-dev-wasm32)"
	}
	return true, ""
}

// CBuild builds one C file for wasm32-wasi. A missing toolchain fails the
// test: scripts/install-toolchains.sh installs it, and a skipped test would
// hide the C bots' checks.
func CBuild(tb testing.TB, file string, flags ...string) string {
	tb.Helper()
	if ok, why := HasC(); !ok {
		tb.Fatalf("no C toolchain for wasm32-wasi (%s): run scripts/install-toolchains.sh as root", why)
	}
	key := hashDir(tb, filepath.Dir(file), append([]string{"c", file}, flags...)...)
	return cached(tb, key, func(out string) *exec.Cmd {
		args := append([]string{"--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-o", out, file}, flags...)
		return exec.Command("clang", args...)
	})
}

// Write stores generated module bytes in a file and returns its path.
func Write(tb testing.TB, name string, wasm []byte) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name+".wasm")
	if err := os.WriteFile(path, wasm, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

func cached(tb testing.TB, key string, command func(out string) *exec.Cmd) string {
	tb.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	out := filepath.Join(outDir, key+".wasm")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		tb.Fatal(err)
	}
	tmp := out + ".tmp"
	cmd := command(tmp)
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("%v: %v\n%s", cmd.Args, err, msg)
	}
	if err := os.Rename(tmp, out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// hashDir hashes every file of dir (not recursively) with the given labels.
func hashDir(tb testing.TB, dir string, labels ...string) string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	h := sha256.New()
	for _, l := range labels {
		fmt.Fprintf(h, "%s\x00", l)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// RunWithCacheDir runs a package's tests with a sandbox cache directory and
// cleans up afterwards. setup gets the directory and returns what to do once
// the tests are done. It returns the exit code.
//
// The directory is kept between runs, beside the builds: compiling a Go bot
// takes seconds of CPU, many times that in a race-instrumented test binary,
// and every entry is keyed by what made it (the module's sha256, the cost
// model, the metering program's fingerprint, wazero's version), so a stale
// entry is never used.
func RunWithCacheDir(m *testing.M, setup func(dir string) (done func(), err error)) int {
	dir := filepath.Join(outDir, "cache")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	done, err := setup(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer done()
	return m.Run()
}
