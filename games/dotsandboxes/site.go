package dotsandboxes

import (
	"embed"
	"io/fs"

	"github.com/arenabots/arena/game"
)

//go:embed web
var siteFiles embed.FS

// Site is the part of the site for Dots and Boxes: the board with its edges
// to click, the rules page, the home page's picture (docs/site.md, "A game's
// board").
func (Game) Site() fs.FS { return game.WebFiles(siteFiles) }
