// Command house is Snake's house bots as one wasm module: the house's
// ladder entries (internal/housebots).
package main

//go:generate go run ../../../internal/housebots/gen

import (
	"github.com/arenabots/arena/games/snake"
	"github.com/arenabots/arena/internal/housebots/hostplay"
)

func main() { hostplay.Main(snake.Game{}) }
