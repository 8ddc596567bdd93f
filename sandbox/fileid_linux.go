//go:build linux

package sandbox

import (
	"os"
	"syscall"
	"time"
)

// fileID tells a file's contents apart without reading them: a write
// changes the size or the modification time, and any change to the inode
// (including setting the modification time back) changes the change time,
// which no user can set.
type fileID struct {
	dev, ino, size      uint64
	mtimeSec, mtimeNsec int64
	ctimeSec, ctimeNsec int64
}

func fileIdentity(fi os.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return fileID{}, false
	}
	return fileID{
		dev: st.Dev, ino: st.Ino, size: uint64(st.Size),
		mtimeSec: st.Mtim.Sec, mtimeNsec: st.Mtim.Nsec,
		ctimeSec: st.Ctim.Sec, ctimeNsec: st.Ctim.Nsec,
	}, true
}

// accessTime is when the file was last read, as far as the kernel keeps it
// (relatime: at the first read after a write, then at most once a day).
func accessTime(fi os.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Atim.Sec, st.Atim.Nsec), true
}
