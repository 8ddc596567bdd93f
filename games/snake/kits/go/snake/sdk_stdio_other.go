// Code generated from the Arena repository's sdk/stdio_other.go by `go generate ./internal/kits`. DO NOT EDIT.

//go:build !wasip1

package main

import "os"

// stdin and stdout are the bot's standard streams.
type stdin struct{}

func (stdin) Read(p []byte) (int, error) { return os.Stdin.Read(p) }

type stdout struct{}

func (stdout) Write(p []byte) (int, error) { return os.Stdout.Write(p) }

// fail writes msg to stderr and exits with status 1.
func fail(msg string) {
	os.Stderr.WriteString(msg + "\n")
	os.Exit(1)
}
