package linesandboxes

import (
	"embed"
	"io/fs"

	"github.com/arenabots/arena/game"
)

//go:embed web
var siteFiles embed.FS

// Site is the part of the site for Lines and Boxes: the board with its dots
// to pick and lines in the 2006 notation, the rules page, its style sheet,
// the home page's picture (docs/site.md, "A game's board").
func (Game) Site() fs.FS { return game.WebFiles(siteFiles) }
