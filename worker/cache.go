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
	size int64
	used uint64
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
// is not cached. A cached file is hashed first: one whose bytes are not the
// module's (a disk error, a hand that swapped files) is deleted and fetched
// again, never played under the module's name.
func (c *Cache) Path(ctx context.Context, sha string, fetch Fetch) (string, error) {
	if !shaPattern.MatchString(sha) {
		return "", fmt.Errorf("module id %q is not a sha256", sha)
	}
	path := filepath.Join(c.dir, sha+".wasm")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if f, ok := c.files[sha]; ok {
		if fileHash(path) == sha {
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
	c.files[sha] = &cached{size: int64(len(data)), used: c.clock}
	c.total += int64(len(data))
	c.evict(sha)
	return path, nil
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
