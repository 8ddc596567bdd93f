// Command write writes every ladder entry's module of the house
// (internal/housebots) into a directory, as GAME-NAME.wasm, to play them
// with the CLI (docs/bots-strength.md, "House bots on the ladder"):
//
//	go run ./internal/housebots/write DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/arenabots/arena/internal/housebots"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/housebots/write DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "write:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	bots, err := housebots.Ladder()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, b := range bots {
		path := filepath.Join(dir, b.Game+"-"+b.Name+".wasm")
		if err := os.WriteFile(path, b.Wasm, 0o644); err != nil {
			return err
		}
		fmt.Println(path)
	}
	return nil
}
