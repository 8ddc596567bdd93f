// Package clitest builds the arena command once for a package's tests, so
// they run it exactly as a user does.
package clitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds the arena command from the package at pkg (a path relative to
// the test's package, e.g. "." or "../cmd/arena"), stores its path in *bin,
// runs the tests, removes the build and exits. Call it from TestMain.
func Main(m *testing.M, pkg string, bin *string) {
	dir, err := os.MkdirTemp("", "arena-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "arena")
	if out, err := exec.Command("go", "build", "-o", *bin, pkg).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the arena command: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
