//go:build linux

package sandbox

import (
	"os"
	"syscall"
	"time"
)

// accessTime is when the file was last read, as far as the kernel keeps it
// (relatime: at the first read after a write, then at most once a day).
func accessTime(fi os.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Atim.Sec, st.Atim.Nsec), true
}
