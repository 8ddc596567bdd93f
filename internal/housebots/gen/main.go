// Command gen rebuilds the house's ladder modules into internal/housebots/wasm
// (run by `go generate ./internal/housebots`, from that directory).
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/internal/housebots/modbuild"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "housebots gen:", err)
		os.Exit(1)
	}
}

func run() error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, err := modbuild.Root(wd)
	if err != nil {
		return err
	}
	for _, b := range housebots.Builds() {
		wasm, err := modbuild.Compile(context.Background(), root, b.Package)
		if err != nil {
			return err
		}
		gz := modbuild.Gzip(wasm)
		path := filepath.Join(root, "internal", "housebots", "wasm", b.File)
		if err := os.WriteFile(path, gz, 0o644); err != nil {
			return err
		}
		fmt.Printf("%s: %d bytes, %d gzipped\n", path, len(wasm), len(gz))
	}
	return nil
}
