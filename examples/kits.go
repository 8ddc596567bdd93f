// Package examples holds the starter kits: one simple, legal bot per game in
// Go, C and Rust, each a folder that builds on its own anywhere. The SDK a kit
// needs is copied into it from sdk/ (TestSDKCopies keeps the copies equal to
// their source; `go generate ./examples` rewrites them). The kits are
// embedded, so `arena new` can write one without the repository at hand.
package examples

//go:generate go test -run TestSDKCopies -update .

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The kit files only: never a bot someone built inside a kit's folder.
//
//go:embed go/*/*.go go/*/README.md c/*/*.c c/*/*.h c/*/README.md rust/*/*.rs rust/*/README.md
var kits embed.FS

// Languages lists the kits' languages.
func Languages() []string { return []string{"go", "c", "rust"} }

// Games lists the games that have a kit in lang, by game id.
func Games(lang string) []string {
	entries, err := fs.ReadDir(kits, lang)
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	return ids
}

// Files returns the kit for game in lang: file name to content.
func Files(lang, game string) (map[string][]byte, error) {
	if !slices.Contains(Languages(), lang) {
		return nil, fmt.Errorf("no kits in %q: the languages are %s", lang, strings.Join(Languages(), ", "))
	}
	if !slices.Contains(Games(lang), game) {
		return nil, fmt.Errorf("no %s kit for %q: there are kits for %s", lang, game, strings.Join(Games(lang), ", "))
	}
	dir := path.Join(lang, game)
	entries, err := fs.ReadDir(kits, dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		data, err := fs.ReadFile(kits, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files[e.Name()] = data
	}
	return files, nil
}

// ErrNotEmpty is returned by Write for a folder that already has files in it.
var ErrNotEmpty = errors.New("the folder is not empty")

// Write writes the kit for game in lang into dir, which must not exist yet
// or be empty, so that nothing of the user's is overwritten.
func Write(lang, game, dir string) error {
	files, err := Files(lang, game)
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
