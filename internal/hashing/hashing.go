// Package hashing is the one home of the content hashes the platform names
// files by: a bot's sha256 in a replay, a module's key in the compile cache.
package hashing

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// SHA256Hex is the lower-case hex sha256 of data.
func SHA256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// FileSHA256 is the lower-case hex sha256 of the file at path, read as a
// stream so a large file is never held in memory.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
