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
