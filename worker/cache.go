package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"

	"github.com/arenabots/arena/internal/hashing"
)

// Cache keeps bot modules fetched from the server as files named by their
// sha256, bounded in total size: the least recently used go first.
// (Compiled code is cached by the sandbox's runtime, also by sha256, so a
// module is compiled once per process.)
type Cache struct {
	dir   string
	max   int64
	mu    sync.Mutex
	clock uint64
	files map[string]*cached
	total int64
}

type cached struct {
	size     int64
	used     uint64
	id       hashing.FileID // the file's identity when it was last hashed
	verified bool           // whether id is known to hold the module's bytes
}

var shaPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Fetch reads a module's bytes by sha256 (from the server, with the lease
// of the job that names it: jobs.FetchModule).
type Fetch func(ctx context.Context, sha string) ([]byte, error)

// NewCache opens (creating) a cache directory; max <= 0 means 1 GiB.
func NewCache(dir string, max int64) (*Cache, error) {
	if max <= 0 {
		max = 1 << 30
	}
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "arena-worker-cache-"); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("worker: cache: %w", err)
	}
	c := &Cache{dir: dir, max: max, files: map[string]*cached{}}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		if len(name) == 64+5 && shaPattern.MatchString(name[:64]) && filepath.Ext(name) == ".wasm" {
			if info, err := e.Info(); err == nil {
				c.files[name[:64]] = &cached{size: info.Size()}
				c.total += info.Size()
			}
		}
	}
	return c, nil
}

// Path returns the path of the module with this sha256, fetching it when it
// is not cached. A cached file is hashed before its first use, and again
// whenever its identity (hashing.Identity: inode, size, modification and
// change times) is not the one it had when hashed: one whose bytes are not
// the module's (a disk error, a hand that swapped or rewrote files) is
// deleted and fetched again, never played under the module's name. Hashing
// a Go bot's module before every match was a tenth of a worker's CPU.
func (c *Cache) Path(ctx context.Context, sha string, fetch Fetch) (string, error) {
	if !shaPattern.MatchString(sha) {
		return "", fmt.Errorf("module id %q is not a sha256", sha)
	}
	path := filepath.Join(c.dir, sha+".wasm")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if f, ok := c.files[sha]; ok {
		if c.intact(f, path, sha) {
			f.used = c.clock
			return path, nil
		}
		os.Remove(path)
		c.total -= f.size
		delete(c.files, sha)
	}
	data, err := fetch(ctx, sha)
	if err != nil {
		// The server cannot serve it now (a lease it no longer counts as
		// current is also stopped by the renewals): a platform failure.
		return "", errRetry{fmt.Errorf("fetch module %s: %w", sha, err)}
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != sha {
		return "", errRetry{fmt.Errorf("module %s: the server sent other bytes", sha)}
	}
	tmp, err := os.CreateTemp(c.dir, sha+".*.tmp")
	if err != nil {
		return "", errRetry{err}
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return "", errRetry{fmt.Errorf("cache module: %v %v", werr, cerr)}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return "", errRetry{err}
	}
	f := &cached{size: int64(len(data)), used: c.clock}
	if fi, err := os.Stat(path); err == nil {
		f.id, f.verified = hashing.Identity(fi)
	}
	c.files[sha] = f
	c.total += int64(len(data))
	c.evict(sha)
	return path, nil
}

// intact is whether the cached file at path still holds the module sha: by
// its identity when that is unchanged since it was hashed, else by hashing
// it again.
func (c *Cache) intact(f *cached, path, sha string) bool {
	before, err := os.Stat(path)
	if err != nil {
		return false
	}
	id, known := hashing.Identity(before)
	if known && f.verified && id == f.id {
		return true
	}
	if fileHash(path) != sha {
		return false
	}
	// Trusted by identity from now on only if the file did not change
	// while it was read.
	if after, err := os.Stat(path); err == nil && known {
		if again, _ := hashing.Identity(after); again == id {
			f.id, f.verified = id, true
		}
	}
	return true
}

// fileHash is the hex sha256 of a file's bytes, "" when it cannot be read.
func fileHash(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// evict removes least recently used files until the cache fits, never keep.
func (c *Cache) evict(keep string) {
	if c.total <= c.max {
		return
	}
	shas := make([]string, 0, len(c.files))
	for s := range c.files {
		shas = append(shas, s)
	}
	sort.Slice(shas, func(i, j int) bool { return c.files[shas[i]].used < c.files[shas[j]].used })
	for _, s := range shas {
		if c.total <= c.max {
			break
		}
		if s == keep {
			continue
		}
		os.Remove(filepath.Join(c.dir, s+".wasm"))
		c.total -= c.files[s].size
		delete(c.files, s)
	}
}

// Size is the cached bytes.
func (c *Cache) Size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}
