package hashing

import (
	"os"
	"path/filepath"
	"testing"
)

// The sha256 of "abc" is a published test vector (FIPS 180-2).
const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

func TestSHA256(t *testing.T) {
	if got := SHA256Hex([]byte("abc")); got != abc {
		t.Fatalf("SHA256Hex(abc) = %s", got)
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := FileSHA256(path); err != nil || got != abc {
		t.Fatalf("FileSHA256 = %s, %v", got, err)
	}
	if _, err := FileSHA256(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("FileSHA256 of a missing file did not fail")
	}
}

// TestRegularFileSHA256Bounds: a regular file within the limit is hashed;
// one past it, a directory and a device are refused without being read.
func TestRegularFileSHA256Bounds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := RegularFileSHA256(path, 3); err != nil || got != abc {
		t.Fatalf("RegularFileSHA256 within the limit = %s, %v", got, err)
	}
	for _, p := range []struct {
		path  string
		limit int64
	}{{path, 2}, {dir, 1 << 20}, {os.DevNull, 1 << 20}} {
		if _, err := RegularFileSHA256(p.path, p.limit); err == nil {
			t.Errorf("RegularFileSHA256(%s, %d) did not fail", p.path, p.limit)
		}
	}
}
