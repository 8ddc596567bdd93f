// Package hashing is the one home of the content hashes the platform names
// files by: a bot's sha256 in a replay, a module's key in the compile cache.
package hashing

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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

// RegularFileSHA256 is FileSHA256 of a file that must be a regular file of
// at most limit bytes: anything else (a device such as /dev/zero, a pipe, a
// directory, a file too large) is refused before a byte is read, so a path
// taken from an untrusted source (a replay file) cannot make the caller hash
// forever or block on open.
func RegularFileSHA256(path string, limit int64) (string, error) {
	regularWithin := func(info os.FileInfo, err error) error {
		switch {
		case err != nil:
			return err
		case !info.Mode().IsRegular():
			return errors.New("not a regular file")
		case info.Size() > limit:
			return fmt.Errorf("%d bytes, more than the limit of %d", info.Size(), limit)
		}
		return nil
	}
	// Stat first: opening a named pipe would block until a writer comes.
	if err := regularWithin(os.Stat(path)); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	// Again on what was opened, in case the path changed in between.
	if err := regularWithin(f.Stat()); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return "", err
	}
	if n > limit {
		return "", fmt.Errorf("%s: more than %d bytes", path, limit)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
