package game

import (
	"io/fs"
	"path"
)

// The parts of a game beyond its rules that live in its package
// (games/README.md): its starter kits and its house's ladder modules. The
// platform asks a game for them through these interfaces, so it names no
// game.

// A KitGame is a game with starter kits, for `arena new`, the site's kit
// downloads and the kit tests (internal/kits).
type KitGame interface {
	Game
	// Kits returns the game's kits as <lang>/<kit>/<file>: <lang> is one of
	// KitLanguages, <kit> the game's id for its starter kit and
	// <id>-<name> for a larger kit (arena new --kit <name>).
	Kits() fs.FS
}

// KitLanguages are the languages every game has a starter kit in, in the
// order they are listed.
var KitLanguages = []string{"go", "c", "rust"}

// A LadderGame is a game whose house bots play on the rated ladder: there
// the house plays by everyone's rules, as wasm modules within the game's
// fuel, which internal/housebots seeds for @house.
type LadderGame interface {
	Game
	// Ladder lists the entries, weakest first; the first is the game's
	// first house bot (the smoke match's).
	Ladder() []LadderEntry
	// HouseModules returns the game's built modules, gzipped:
	// HouseModule, and KitModule(e.Kit) for each entry e a kit plays.
	HouseModules() fs.FS
}

// A LadderEntry is one of a game's house bots on the rated ladder.
type LadderEntry struct {
	Name string // the house bot (HouseBotInfo.Name) the entry plays
	// Kit, when set, is the starter kit (its path in Kits, such as
	// "c/dots-and-boxes-search") whose own build plays the entry, rather
	// than the native house bot behind the game's house module.
	Kit string
}

// HouseModule is the file, in a LadderGame's HouseModules, of the build of
// the game's house/ main: every native house bot of the game, of which each
// ladder entry's copy plays the one written into it.
const HouseModule = "house.wasm.gz"

// KitModule is the file, in a LadderGame's HouseModules, of the build of
// the kit at path kit (LadderEntry.Kit).
func KitModule(kit string) string { return path.Base(kit) + ".wasm.gz" }
