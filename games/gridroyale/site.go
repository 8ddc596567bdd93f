package gridroyale

import (
	"embed"
	"io/fs"

	"github.com/arenabots/arena/game"
)

//go:embed web
var siteFiles embed.FS

// Site is the part of the site for Grid Royale: the map with its ore, zone
// and units, the orders a person gives, the rules page, its style sheet, the
// home page's picture (docs/site.md, "A game's board").
func (Game) Site() fs.FS { return game.WebFiles(siteFiles) }
