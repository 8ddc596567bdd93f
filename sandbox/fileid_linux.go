//go:build linux

package sandbox

import (
	"os"
	"syscall"
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
