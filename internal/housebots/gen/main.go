// Command gen rebuilds the house's ladder modules into each game's house/
// folder: every game's when run by `go generate ./internal/housebots`, one
// game's when run by `go generate ./games/<g>/house` (from that folder).
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
	builds := housebots.Builds()
	if wd != filepath.Join(root, "internal", "housebots") {
		// Run from a game's house folder: that game's modules only.
		var mine []modbuild.Build
		for _, b := range builds {
			path, err := b.Path(root)
			if err != nil {
				return err
			}
			if filepath.Dir(path) == wd {
				mine = append(mine, b)
			}
		}
		if len(mine) == 0 {
			return fmt.Errorf("%s is the house folder of no game of games.All with a ladder (Ladder and HouseModules)", wd)
		}
		builds = mine
	}
	for _, b := range builds {
		wasm, err := b.Module(context.Background(), root)
		if err != nil {
			return err
		}
		gz := modbuild.Gzip(wasm)
		path, err := b.Path(root)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, gz, 0o644); err != nil {
			return err
		}
		fmt.Printf("%s: %d bytes, %d gzipped\n", path, len(wasm), len(gz))
	}
	return nil
}
