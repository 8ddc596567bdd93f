//go:build !linux

package sandbox

import "os"

// fileID is empty where the system gives no change time: every
// CompileFile reads and hashes its file.
type fileID struct{}

func fileIdentity(os.FileInfo) (fileID, bool) { return fileID{}, false }
