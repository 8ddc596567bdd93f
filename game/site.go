package game

import (
	"embed"
	"io/fs"
	"time"
)

// Display is what the site needs to know of a game beside its rules and
// the files of its board (docs/site.md, "A game's board").
type Display struct {
	// WatchPace is the pause between turns when people watch house bots
	// play live on the site's Play page; zero for the site's default.
	WatchPace time.Duration
}

// WebFiles is a game's web/ folder, embedded by its package, as the root
// of the files its Site method gives the site: board.js, rules.html, and
// optionally board.css and thumb.html (docs/site.md, "A game's board").
func WebFiles(embedded embed.FS) fs.FS {
	f, err := fs.Sub(embedded, "web")
	if err != nil {
		panic(err) // fs.Sub fails only on a malformed name, and "web" is not
	}
	return f
}
