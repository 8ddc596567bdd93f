package snake

import (
	"embed"
	"io/fs"
)

//go:embed web
var siteFiles embed.FS

// Site is the game's part of the web site: board.js, rules.html, board.css
// and thumb.html (docs/site.md).
func (Game) Site() fs.FS { f, _ := fs.Sub(siteFiles, "web"); return f }
