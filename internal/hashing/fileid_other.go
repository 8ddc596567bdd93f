//go:build !linux

package hashing

import "os"

// FileID is empty where the system gives no change time: callers hash the
// file at every use.
type FileID struct{}

// Identity is never known here.
func Identity(os.FileInfo) (FileID, bool) { return FileID{}, false }
