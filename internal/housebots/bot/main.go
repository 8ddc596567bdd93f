// Command bot is every house bot of every game as one wasm module: the
// ladder entry it plays is chosen by the name internal/housebots writes into
// the module (hostplay.Selected), so the house's ladder needs one build, not
// one per bot, in the repository.
package main

import (
	"fmt"
	"os"

	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/games/gridroyale"
	"github.com/arenabots/arena/games/linesandboxes"
	"github.com/arenabots/arena/internal/housebots/hostplay"
	"github.com/arenabots/arena/internal/housebots/hostplay/dnbobs"
	"github.com/arenabots/arena/internal/housebots/hostplay/grobs"
	"github.com/arenabots/arena/internal/housebots/hostplay/lnbobs"
)

func main() {
	game, name := hostplay.Selected()
	switch game {
	case dotsandboxes.ID:
		hostplay.Run(dotsandboxes.Game{}, name, dnbobs.Decode)
	case "lines-and-boxes":
		hostplay.Run(linesandboxes.Game{}, name, lnbobs.Decode)
	case "grid-royale":
		hostplay.Run(gridroyale.Game{}, name, grobs.NewDecoder())
	default:
		fmt.Fprintf(os.Stderr, "no house bot is selected in this module (%q)\n", game+"/"+name)
		os.Exit(2)
	}
}
