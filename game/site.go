package game

import "time"

// Display is what the site needs to know of a game beside its rules and
// the files of its board (docs/site.md, "A game's board").
type Display struct {
	// WatchPace is the pause between turns when people watch house bots
	// play live on the site's Play page; zero for the site's default.
	WatchPace time.Duration
}
