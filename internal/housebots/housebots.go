// Package housebots holds the house's rated ladder entries as wasm modules.
// On the ladder the house plays by the rules everyone plays by: its entries
// are wasm bots within the standard fuel, not the native house bots (those
// stay for Play built-ins, the smoke match and the CLI). `arena serve` seeds
// them for @house (internal/server) without a Go toolchain: each game builds
// and commits its own modules, gzipped, in games/<g>/house/ (`go generate
// ./internal/housebots` builds every game's), and hands them over through
// game.LadderGame; TestModulesAreFresh fails when the sources moved on
// without them. This package names no game: it takes every game of
// games.All that is a game.LadderGame.
//
// A game's modules make its entries:
//   - house.wasm.gz is the game's house/ main: its house bots written in Go,
//     each behind hostplay, which reads the observation into the game's
//     state and asks the bot. Select writes which bot a ladder entry plays
//     into its copy of the module, so a game commits one build, not one per
//     bot.
//   - <kit>.wasm.gz is a starter kit's own build, for an entry a kit plays
//     (game.LadderEntry.Kit), such as Dots and Boxes' C search kit:
//     builtin:search's engine, thinking until the turn's fuel is spent. A
//     Go kit is built with go build, a C kit ("c/...") with clang.
package housebots

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/hashing"
	"github.com/arenabots/arena/internal/housebots/hostplay"
	"github.com/arenabots/arena/internal/housebots/modbuild"
)

//go:generate go run ./gen

// Entry is one ladder entry: a house bot's name in its game, and the file
// of the game's module that plays it.
type Entry struct {
	Game, Name string
	File       string // in the game's HouseModules
}

// ladderGames are the games with house bots on the ladder.
func ladderGames() []game.LadderGame {
	var out []game.LadderGame
	for _, g := range games.All() {
		if lg, ok := g.(game.LadderGame); ok {
			out = append(out, lg)
		}
	}
	return out
}

// entries are g's ladder entries.
func entries(g game.LadderGame) []Entry {
	var out []Entry
	for _, e := range g.Ladder() {
		file := game.HouseModule
		if e.Kit != "" {
			file = game.KitModule(e.Kit)
		}
		out = append(out, Entry{Game: g.Info().ID, Name: e.Name, File: file})
	}
	return out
}

// Entries are the house's ladder entries, game by game in the registry's
// order, each game's weakest first. A native house bot a game leaves out
// does not fit the standard fuel as it stands (its budget counts nodes,
// not fuel).
func Entries() []Entry {
	var out []Entry
	for _, g := range ladderGames() {
		out = append(out, entries(g)...)
	}
	return out
}

// packagePath is the import path of g's package: the game's house main
// and kits are folders inside it.
func packagePath(g game.Game) string {
	t := reflect.TypeOf(g)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath()
}

// Builds are the committed modules of every ladder game: its house build,
// and each starter kit that plays an entry. Build.Dir is the game's house
// package, where the module is committed.
func Builds() []modbuild.Build {
	var out []modbuild.Build
	for _, g := range ladderGames() {
		house := packagePath(g) + "/house"
		out = append(out, modbuild.Build{Game: g.Info().ID, File: game.HouseModule, Package: house, Dir: house})
		for _, e := range g.Ladder() {
			switch {
			case strings.HasPrefix(e.Kit, "c/"):
				out = append(out, modbuild.Build{Game: g.Info().ID, File: game.KitModule(e.Kit), Package: packagePath(g), Dir: house, C: "kits/" + e.Kit})
			case e.Kit != "":
				out = append(out, modbuild.Build{Game: g.Info().ID, File: game.KitModule(e.Kit), Package: packagePath(g) + "/kits/" + e.Kit, Dir: house})
			}
		}
	}
	return out
}

// Bot is one ladder entry's module.
type Bot struct {
	Game, Name string
	Wasm       []byte
	SHA256     string // hex, as the store keys modules
}

// Ladder returns every ladder entry's module, in Entries' order, made anew
// at each call: the modules are 50 MB, wanted once when a server starts, and
// a cached copy would stay in its memory for good.
func Ladder() ([]Bot, error) {
	var out []Bot
	for _, g := range ladderGames() {
		mods := map[string][]byte{}
		for _, e := range entries(g) {
			wasm, ok := mods[e.File]
			if !ok {
				gz, err := fs.ReadFile(g.HouseModules(), e.File)
				if err != nil {
					return nil, fmt.Errorf("housebots: %s: %w", e.Game, err)
				}
				if wasm, err = modbuild.Gunzip(gz); err != nil {
					return nil, fmt.Errorf("housebots: %s: %s: %w", e.Game, e.File, err)
				}
				mods[e.File] = wasm
			}
			if e.File == game.HouseModule {
				var err error
				if wasm, err = Select(wasm, e.Game, e.Name); err != nil {
					return nil, err
				}
			}
			sum := sha256.Sum256(wasm)
			out = append(out, Bot{Game: e.Game, Name: e.Name, Wasm: wasm, SHA256: hex.EncodeToString(sum[:])})
		}
	}
	return out, nil
}

// Select returns a copy of the house module that plays game's house bot
// name: it writes "game/name" over the module's unselected selection string
// (hostplay.Marker), which must occur exactly once.
func Select(wasm []byte, game, name string) ([]byte, error) {
	blank := []byte(hostplay.Marker + string(bytes.Repeat([]byte{'.'}, hostplay.SelectionLen)))
	sel := game + "/" + name
	if len(sel) > hostplay.SelectionLen {
		return nil, fmt.Errorf("housebots: %q is longer than %d bytes", sel, hostplay.SelectionLen)
	}
	if n := bytes.Count(wasm, blank); n != 1 {
		return nil, fmt.Errorf("housebots: the house module holds its selection string %d times, want once", n)
	}
	out := bytes.Clone(wasm)
	i := bytes.Index(out, blank) + len(hostplay.Marker)
	copy(out[i:i+hostplay.SelectionLen], fmt.Sprintf("%-*s", hostplay.SelectionLen, sel))
	return out, nil
}

// Module returns the ladder entry of game's house bot name.
func Module(game, name string) (Bot, error) {
	bots, err := Ladder()
	if err != nil {
		return Bot{}, err
	}
	var names []string
	for _, b := range bots {
		if b.Game == game && b.Name == name {
			return b, nil
		}
		if b.Game == game {
			names = append(names, b.Name)
		}
	}
	if len(names) == 0 {
		return Bot{}, fmt.Errorf("the house has no ladder entries for %s", game)
	}
	return Bot{}, fmt.Errorf("the house has no ladder entry %q for %s (entries: %s)", name, game, strings.Join(names, ", "))
}

// CachedPath writes b's module into the user's cache, once, named by its
// sha256, and returns its path: wasm bots are opened from files.
func CachedPath(b Bot) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "arena", "house")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, b.SHA256+".wasm")
	if got, err := hashing.FileSHA256(p); err == nil && got == b.SHA256 {
		return p, nil
	}
	tmp, err := os.CreateTemp(dir, "house-*.wasm")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(b.Wasm)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("house module %s/%s: %w", b.Game, b.Name, err)
	}
	return p, nil
}
