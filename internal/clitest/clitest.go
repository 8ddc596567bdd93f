// Package clitest runs the arena command in tests exactly as a user does:
// it builds the command once for a package's tests (Main) and runs it as
// child processes that a test can kill, freeze and wait for (Start).
package clitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Main builds the arena command from the package at pkg (a path relative to
// the test's package, e.g. "." or "../cmd/arena") with the given extra
// `go build` flags (e.g. "-tags", "arenatesthooks"), stores its path in
// *bin, runs the tests, removes the build and exits. Call it from TestMain.
func Main(m *testing.M, pkg string, bin *string, buildFlags ...string) {
	dir, err := os.MkdirTemp("", "arena-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "arena")
	args := append(append([]string{"build", "-o", *bin}, buildFlags...), pkg)
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the arena command: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Proc is a child process of a test.
type Proc struct {
	Name string
	Cmd  *exec.Cmd
	done chan struct{}
	err  error // how it ended; set before done closes
}

// Start starts cmd with its stdout and stderr appended to logPath, and
// kills it (SIGKILL) when the test ends if it still runs.
func Start(t testing.TB, logPath, name string, cmd *exec.Cmd) *Proc {
	t.Helper()
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	p := &Proc{Name: name, Cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	t.Cleanup(p.Kill)
	return p
}

// Done is closed when the process has ended; Err then says how.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is how the process ended (nil for exit status 0); only after Done.
func (p *Proc) Err() error { <-p.done; return p.err }

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Signal sends sig unless the process has ended.
func (p *Proc) Signal(sig syscall.Signal) {
	if !p.Exited() {
		p.Cmd.Process.Signal(sig)
	}
}

// Kill ends the process with SIGKILL (a stopped one too) and reaps it.
func (p *Proc) Kill() {
	p.Signal(syscall.SIGKILL)
	<-p.done
}

// WaitFor polls cond every 50 ms until it holds, and fails the test when it
// still does not after d (a generous deadline, not a timing assertion).
func WaitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Tail is the end of a log file, at most n bytes, for a failed test's log.
func Tail(path string, n int) string {
	data, _ := os.ReadFile(path)
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return string(data)
}
