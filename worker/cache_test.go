package worker

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/hashing"
)

// TestCacheTrustsAFileOnlyWhileItIsUnchanged: a cached module is hashed
// once, then trusted by its identity; any rewrite of the file (other bytes,
// or the same size with the modification time set back) makes the next use
// hash it again, and bytes that are not the module's are fetched anew.
func TestCacheTrustsAFileOnlyWhileItIsUnchanged(t *testing.T) {
	module := bytes.Repeat([]byte("module bytes "), 1000)
	sha := hashing.SHA256Hex(module)
	fetches := 0
	fetch := func(context.Context, string) ([]byte, error) { fetches++; return module, nil }
	c, err := NewCache(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	use := func(wantFetches int) string {
		t.Helper()
		path, err := c.Path(context.Background(), sha, fetch)
		if err != nil {
			t.Fatal(err)
		}
		if fetches != wantFetches {
			t.Fatalf("%d fetches, want %d", fetches, wantFetches)
		}
		if data, err := os.ReadFile(path); err != nil || !bytes.Equal(data, module) {
			t.Fatalf("the cached file does not hold the module (%v)", err)
		}
		return path
	}
	path := use(1)
	use(1)
	use(1)

	// Other bytes of another size.
	if err := os.WriteFile(path, []byte("forged"), 0o600); err != nil {
		t.Fatal(err)
	}
	use(2)

	// The same size, and the modification time put back: the change time
	// still moves.
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	forged := bytes.ToUpper(module)
	if err := os.WriteFile(path, forged, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	use(3)
	use(3)
}
