//go:build !linux

package sandbox

import (
	"os"
	"time"
)

// fileID is empty where the system gives no change time: every
// CompileFile reads and hashes its file.
type fileID struct{}

func fileIdentity(os.FileInfo) (fileID, bool) { return fileID{}, false }

// accessTime is not known here: the trim goes by modification times.
func accessTime(os.FileInfo) (time.Time, bool) { return time.Time{}, false }
