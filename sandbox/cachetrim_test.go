package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestTrimCache pins the disk cache's bound: the least recently used files
// go first until the rest fit, in subdirectories too, and files younger
// than cacheGrace stay even when the cache is still over its bound.
func TestTrimCache(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	files := []struct {
		name      string
		age, read time.Duration // since written, since last read (0: when written)
		keep      bool
	}{
		{"a.cost2.wasm", 5 * time.Hour, 0, false},
		{"wazero/x/b", 4 * time.Hour, 0, false},
		{"c.cost2.wasm", 3 * time.Hour, 0, false},
		{"wazero/x/d", 2 * time.Hour, 0, true},
		{"e.cost2.wasm", time.Minute, 0, true}, // young: kept
		// wazero's compiled code is never rewritten, only read: where the
		// system keeps access times, a hot module's code is not the oldest.
		{"wazero/x/f", 6 * time.Hour, time.Hour, runtime.GOOS == "linux"},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		mt, at := now.Add(-f.age), now.Add(-f.age)
		if f.read > 0 {
			at = now.Add(-f.read)
		}
		if err := os.Chtimes(p, at, mt); err != nil {
			t.Fatal(err)
		}
	}
	trimCache(dir, 300, now)
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if (err == nil) != f.keep {
			t.Errorf("%s: kept %v, want %v", f.name, err == nil, f.keep)
		}
	}
	// Under its bound, the cache keeps everything, however old.
	trimCache(dir, 1000, now.Add(24*time.Hour))
	for _, name := range []string{"wazero/x/d", "e.cost2.wasm"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("a cache under its bound was trimmed: %v", err)
		}
	}
	// Over the bound, a file younger than the grace period stays.
	trimCache(dir, 50, now.Add(-2*time.Hour+cacheGrace/2))
	if _, err := os.Stat(filepath.Join(dir, "wazero/x/d")); err != nil {
		t.Errorf("a file younger than the grace period was trimmed: %v", err)
	}
}
