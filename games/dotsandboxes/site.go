package dotsandboxes

import (
	"embed"
	"io/fs"
)

//go:embed web
var siteFiles embed.FS

// Site is the game's part of the web site: its board script (drawing and
// input), its rules page, its style sheet and its picture on the home page
// (docs/site.md, "A game's board").
func (Game) Site() fs.FS {
	f, err := fs.Sub(siteFiles, "web")
	if err != nil {
		panic(err) // web is embedded above, so it is there
	}
	return f
}
