package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// DefaultCacheBytes bounds a Runtime's disk cache (metered modules and
// wazero's compiled code) when Options.CacheBytes is zero.
const DefaultCacheBytes = 1 << 30

// cacheGrace keeps files younger than this out of the trim: a compile in
// progress (this process's or another's sharing the directory) writes its
// files and reads them back within it, and the parent's compile must find
// what the child wrote (a miss would compile in the parent, outside the
// child's limits).
const cacheGrace = 10 * time.Minute

// trimCache deletes the least recently used files under dir, until the
// files add up to at most max bytes. A file's last use is its modification
// time (a metered module read from the cache has it renewed) or, when
// later, its access time: wazero never renews its compiled files, which
// went by their write time alone, so a hot module's code was trimmed
// before a cold one's (the access time is kept to a day, with relatime). Files younger
// than cacheGrace stay whatever the total. Errors are ignored: a file that
// cannot be removed only keeps the cache larger.
func trimCache(dir string, max int64, now time.Time) {
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		used := info.ModTime()
		if a, ok := accessTime(info); ok && a.After(used) {
			used = a
		}
		files = append(files, file{path, info.Size(), used})
		total += info.Size()
		return nil
	})
	if total <= max {
		return
	}
	sort.Slice(files, func(i, j int) bool {
		if !files[i].mod.Equal(files[j].mod) {
			return files[i].mod.Before(files[j].mod)
		}
		return files[i].path < files[j].path
	})
	for _, f := range files {
		if total <= max {
			return
		}
		if now.Sub(f.mod) < cacheGrace {
			continue
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}
