// Command bot is every house bot of every game as one wasm module: the
// ladder entry it plays is chosen by the name internal/housebots writes into
// the module (hostplay.Selected), so the house's ladder needs one build, not
// one per bot, in the repository.
package main

import (
	"fmt"
	"os"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/housebots/hostplay"
)

func main() {
	id, name := hostplay.Selected()
	for _, g := range games.All() {
		if hg, ok := g.(hostplay.Game); ok && g.Info().ID == id {
			hostplay.Run(hg, name)
			return
		}
	}
	fmt.Fprintf(os.Stderr, "no house bot is selected in this module (%q)\n", id+"/"+name)
	os.Exit(2)
}
