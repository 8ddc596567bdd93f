package sandbox

import (
	"context"
	"fmt"
	"os"

	"github.com/arenabots/arena/internal/hashing"
)

// maxKnownFiles bounds Runtime.files; past it the map starts again empty
// (a file forgotten is only hashed once more).
const maxKnownFiles = 4096

// CompileFile is Compile of the module in the file at path. A file opened
// again unchanged is neither read nor hashed when its compiled module is
// still cached: the Runtime remembers the hash of each file by its identity
// (hashing.Identity: device, inode, size, modification and change times, where
// the system gives them). A tournament or a worker opens the same few
// modules for every match, and reading and hashing a 3.5 MB Go module per
// open took a tenth of a busy server's CPU (docs/performance.md).
func (r *Runtime) CompileFile(ctx context.Context, path string) (*Module, error) {
	before, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	id, known := hashing.Identity(before)
	if known {
		r.mu.Lock()
		key, ok := r.files[id]
		r.mu.Unlock()
		if ok {
			if m, found, err := r.lookup(key); found {
				return m, err
			}
		}
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := r.Compile(ctx, wasm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Remembered only if the file did not change while it was read.
	if after, err := os.Stat(path); err == nil && known {
		if again, _ := hashing.Identity(after); again == id {
			r.mu.Lock()
			if len(r.files) >= maxKnownFiles {
				clear(r.files)
			}
			r.files[id] = m.SHA256
			r.mu.Unlock()
		}
	}
	return m, nil
}
