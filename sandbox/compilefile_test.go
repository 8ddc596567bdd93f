package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/hashing"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// A file opened again unchanged is not hashed again, and a file rewritten
// in place, even to the same size with its modification time set back, is.
func TestCompileFileKnowsChangedFiles(t *testing.T) {
	rt, err := NewRuntime(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	a, b := Echo{MinPages: 2}.Module(), Echo{MinPages: 3}.Module()
	if len(a) != len(b) || string(a) == string(b) {
		t.Fatal("the test wants two different modules of one size")
	}
	path := filepath.Join(t.TempDir(), "bot.wasm")
	if err := os.WriteFile(path, a, 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := rt.CompileFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if first.SHA256 != hashing.SHA256Hex(a) {
		t.Fatalf("SHA256 %s, want the file's", first.SHA256)
	}
	if len(rt.files) != 1 {
		t.Fatalf("%d files remembered, want 1", len(rt.files))
	}
	again, err := rt.CompileFile(context.Background(), path)
	if err != nil || again != first {
		t.Fatalf("opened again: %p (%v), want the same module %p", again, err, first)
	}

	fi, _ := os.Stat(path)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	changed, err := rt.CompileFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if changed.SHA256 != hashing.SHA256Hex(b) {
		t.Fatalf("after a rewrite: SHA256 %s, want the new contents' %s", changed.SHA256, hashing.SHA256Hex(b))
	}

	if _, err := rt.CompileFile(context.Background(), filepath.Join(t.TempDir(), "missing.wasm")); err == nil {
		t.Fatal("a missing file compiled")
	}
}
