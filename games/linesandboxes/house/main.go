// Command house is Lines and Boxes's house bots as one wasm module: the house's
// ladder entries (internal/housebots) are copies of its build.
package main

//go:generate go run ../../../internal/housebots/gen

import (
	"github.com/arenabots/arena/games/linesandboxes"
	"github.com/arenabots/arena/internal/housebots/hostplay"
)

func main() { hostplay.Main(linesandboxes.Game{}) }
