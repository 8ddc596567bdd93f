//go:build wasip1

package sdk

import (
	"io"
	"syscall"
)

// stdin and stdout are the bot's standard streams, through WASI's fd_read
// and fd_write directly: package os would cost every bot its start-up
// (docs/fuel.md).
type stdin struct{}

func (stdin) Read(p []byte) (int, error) {
	n, err := syscall.Read(0, p)
	if n == 0 && err == nil && len(p) > 0 {
		return 0, io.EOF
	}
	return max(n, 0), err
}

type stdout struct{}

func (stdout) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := syscall.Write(1, p[written:])
		if err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

// fail writes msg to stderr and exits with status 1.
func fail(msg string) {
	syscall.Write(2, []byte(msg+"\n"))
	syscall.Exit(1)
}
