// Package kits serves the games' starter kits: one simple, legal bot per
// game in Go, C and Rust, each a folder that builds on its own anywhere,
// kept in its game's package (games/<g>/kits/<lang>/<kit>/, game.KitGame)
// and embedded there, so `arena new` can write one and the site can zip one
// without the repository at hand. The SDK a kit needs is copied into it from
// sdk/ (TestSDKCopies keeps the copies equal to their source; `go generate
// ./internal/kits` rewrites them). The package names no game: it is handed
// the games.
package kits

//go:generate go test -run TestSDKCopies -update .

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/arenabots/arena/game"
)

// A Kit is one starter kit of a game.
type Kit struct {
	Game game.KitGame
	Lang string
	// Name is the kit's folder: the game's id for its starter kit,
	// <id>-<more> for a larger kit (`arena new --kit <more>`).
	Name string
}

// Of lists g's kits, in game.KitLanguages' order, each language's starter
// first; none when g has no kits.
func Of(g game.Game) []Kit {
	kg, ok := g.(game.KitGame)
	if !ok {
		return nil
	}
	var out []Kit
	for _, lang := range game.KitLanguages {
		entries, _ := fs.ReadDir(kg.Kits(), lang)
		// By name (fs.ReadDir sorts): the starter, <id>, before <id>-<more>.
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, Kit{Game: kg, Lang: lang, Name: e.Name()})
			}
		}
	}
	return out
}

// Languages lists the languages g has kits in.
func Languages(g game.Game) []string {
	var out []string
	for _, k := range Of(g) {
		if !slices.Contains(out, k.Lang) {
			out = append(out, k.Lang)
		}
	}
	return out
}

// Find returns g's kit called name in lang.
func Find(g game.Game, lang, name string) (Kit, error) {
	if !slices.Contains(game.KitLanguages, lang) {
		return Kit{}, fmt.Errorf("no kits in %q: the languages are %s", lang, strings.Join(game.KitLanguages, ", "))
	}
	var have []string
	for _, k := range Of(g) {
		if k.Lang == lang && k.Name == name {
			return k, nil
		}
		if k.Lang == lang {
			have = append(have, k.Name)
		}
	}
	if len(have) == 0 {
		return Kit{}, fmt.Errorf("no %s kit for %s", lang, g.Info().ID)
	}
	return Kit{}, fmt.Errorf("no %s kit %q: %s has %s", lang, name, g.Info().ID, strings.Join(have, ", "))
}

// GoVersion is the Go release written into the go.mod a Go kit gets when it
// is written out: the release the project builds with. The kits' code needs
// only Go 1.23 (the SDK's JSON.Fields is an iterator), but the go line sets
// the default GODEBUG: a line older than the toolchain embeds the
// compatibility settings of every release since, which the Go runtime
// parses at start, about 120,000 fuel of a wasm bot's start-up at its
// prices. An older go command fetches this release itself. TestGoKitVersion
// builds and vets every Go kit written out, with no default GODEBUG.
const GoVersion = "1.26"

// goMod is the go.mod of a Go kit written out. It is not kept in the kit's
// folder, since go:embed refuses a folder that holds a go.mod (it would be
// another module), so the kit is made a module when it leaves the binary:
// its build is then one command.
var goMod = []byte("module bot\n\ngo " + GoVersion + "\n")

// Files returns the kit's files as written out (`arena new`, the site's zip):
// file name to content. A Go kit also gets its go.mod.
func (k Kit) Files() (map[string][]byte, error) {
	dir := path.Join(k.Lang, k.Name)
	entries, err := fs.ReadDir(k.Game.Kits(), dir)
	if err != nil {
		return nil, fmt.Errorf("kit %s: %w", dir, err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		data, err := fs.ReadFile(k.Game.Kits(), path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("kit %s: %w", dir, err)
		}
		files[e.Name()] = data
	}
	if k.Lang == "go" {
		files["go.mod"] = goMod
	}
	return files, nil
}

// ErrNotEmpty is returned by Write for a folder that already has files in it.
var ErrNotEmpty = errors.New("the folder is not empty")

// Write writes the kit into dir, which must not exist yet or be empty, so
// that nothing of the user's is overwritten.
func (k Kit) Write(dir string) error {
	files, err := k.Files()
	if err != nil {
		return err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s: %w", dir, ErrNotEmpty)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}
