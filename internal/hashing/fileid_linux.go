//go:build linux

package hashing

import (
	"os"
	"syscall"
)

// A FileID tells a file's contents apart without reading them: a write
// changes the size or the modification time, and any change to the inode
// (including setting the modification time back) changes the change time,
// which no user can set. Caches use it to hash a file once, not at every use.
type FileID struct {
	dev, ino, size      uint64
	mtimeSec, mtimeNsec int64
	ctimeSec, ctimeNsec int64
}

// Identity is fi's FileID, and whether the system gives one (a regular file
// on Linux).
func Identity(fi os.FileInfo) (FileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return FileID{}, false
	}
	return FileID{
		dev: st.Dev, ino: st.Ino, size: uint64(st.Size),
		mtimeSec: st.Mtim.Sec, mtimeNsec: st.Mtim.Nsec,
		ctimeSec: st.Ctim.Sec, ctimeNsec: st.Ctim.Nsec,
	}, true
}
