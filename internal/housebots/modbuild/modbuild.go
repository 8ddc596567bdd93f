// Package modbuild builds the house's ladder modules (internal/housebots)
// reproducibly: the generator writes them, the freshness test compares.
package modbuild

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// A Build is one committed module of a game (housebots.Builds lists them):
// the Go package it is built from and the package whose folder holds it
// (the game's house/, embedded by the game), both import paths, and its file
// name there. A C kit's module is built from the folder C inside Package's
// (Package is then the game's package), with clang as the kit's README says.
type Build struct {
	Game    string // the game's id
	File    string
	Package string
	Dir     string
	C       string // a C kit's folder, relative to Package's, such as "kits/c/x"
}

// Module builds b's module from its sources.
func (b Build) Module(ctx context.Context, root string) ([]byte, error) {
	if b.C == "" {
		return Compile(ctx, root, b.Package)
	}
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", b.Package)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", b.Package, err)
	}
	return CompileC(ctx, filepath.Join(string(bytes.TrimSpace(out)), filepath.FromSlash(b.C)))
}

// Path is where b's module is committed, under root (the repository's root).
func (b Build) Path(root string) (string, error) {
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", b.Dir)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list %s: %w", b.Dir, err)
	}
	return filepath.Join(string(bytes.TrimSpace(out)), b.File), nil
}

// BuildFlags are the flags every module is built with: no paths of the
// machine, no VCS stamp, no build id, so the same sources give the same
// bytes anywhere with the same Go release.
var BuildFlags = []string{"-trimpath", "-buildvcs=false", "-ldflags=-buildid="}

// Compile builds pkg (an import path, or a path relative to root, the
// repository's root) for the platform with go, as `go generate` does, and
// returns the module.
func Compile(ctx context.Context, root, pkg string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "housebots-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "bot.wasm")
	args := append([]string{"build"}, BuildFlags...)
	cmd := exec.CommandContext(ctx, "go", append(args, "-o", out, pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, stderr.String())
	}
	return os.ReadFile(out)
}

// CFlags are the flags a C kit is built with, its README's: nothing of the
// machine goes into the module (no debug information, no paths), so the
// same sources give the same bytes with the same clang and wasi-libc.
var CFlags = []string{"--target=wasm32-wasi", "--sysroot=/usr", "-O2"}

// CompileC builds the C kit in dir (its main.c) for the platform with clang
// and returns the module.
func CompileC(ctx context.Context, dir string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "housebots-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "bot.wasm")
	cmd := exec.CommandContext(ctx, "clang", append(CFlags, "-o", out, "main.c")...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("clang %s: %v\n%s", dir, err, stderr.String())
	}
	return os.ReadFile(out)
}

// Root finds the repository's root (the main module's directory) from dir.
func Root(dir string) (string, error) {
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := string(bytes.TrimSpace(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("%s is not inside the repository's module", dir)
	}
	return filepath.Dir(mod), nil
}

// Gzip compresses a module the same way every time: best compression, no
// name, no time, so a rebuild from unchanged sources gives the same bytes.
func Gzip(data []byte) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// Gunzip reverses Gzip.
func Gunzip(gz []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}
