// Code generated from the Arena repository's sdk/stdio_wasip1.go by `go generate ./internal/kits`. DO NOT EDIT.

//go:build wasip1

package main

import (
	"errors"
	"io"
	"unsafe"
)

// stdin and stdout are the bot's standard streams, through WASI's fd_read
// and fd_write directly: package os, or even package syscall, would cost
// every bot's start-up their initialisation (docs/fuel.md).
type stdin struct{}

func (stdin) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := fdIO(fdRead, 0, p)
	if n == 0 && err == nil {
		return 0, io.EOF
	}
	return n, err
}

type stdout struct{}

func (stdout) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := fdIO(fdWrite, 1, p[written:])
		if err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

// fail writes msg to stderr and exits with status 1.
func fail(msg string) {
	fdIO(fdWrite, 2, []byte(msg+"\n"))
	procExit(1)
}

// iovec is WASI's: a buffer's address and length in the linear memory.
type iovec struct {
	buf, len uint32
}

// fdIO reads or writes p with one iovec.
func fdIO(call func(fd int32, iovs unsafe.Pointer, n int32, done unsafe.Pointer) int32, fd int32, p []byte) (int, error) {
	iov := iovec{uint32(uintptr(unsafe.Pointer(unsafe.SliceData(p)))), uint32(len(p))}
	var done uint32
	if errno := call(fd, unsafe.Pointer(&iov), 1, unsafe.Pointer(&done)); errno != 0 {
		return 0, errors.New("WASI error " + itoa(int(errno)))
	}
	return int(done), nil
}

func itoa(n int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

//go:wasmimport wasi_snapshot_preview1 fd_read
//go:noescape
func fdRead(fd int32, iovs unsafe.Pointer, n int32, read unsafe.Pointer) int32

//go:wasmimport wasi_snapshot_preview1 fd_write
//go:noescape
func fdWrite(fd int32, iovs unsafe.Pointer, n int32, written unsafe.Pointer) int32

//go:wasmimport wasi_snapshot_preview1 proc_exit
func procExit(code int32)
