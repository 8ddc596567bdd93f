package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/kits"
)

type newCmd struct {
	Lang string `required:"" enum:"go,c,rust" help:"The kit's language: go, c or rust."`
	Game string `required:"" help:"Game id (see 'arena games')."`
	Kit  string `help:"A kit other than the starter, by name: a name that does not exist lists those that do."`
	Dir  string `arg:"" help:"The folder to write: new, or empty."`
}

func (c *newCmd) Run() error {
	g, err := lookupGame(c.Game)
	if err != nil {
		return err
	}
	// A larger kit sits beside the game's starter, named GAME-KIT.
	name := c.Game
	if c.Kit != "" {
		name += "-" + c.Kit
	}
	kit, err := kits.Find(g, c.Lang, name)
	if err != nil && c.Kit != "" && slices.Contains(kits.Languages(g), c.Lang) {
		// The language and game are fine: the kit is what is missing.
		var have, all []string
		for _, g := range games.All() {
			for _, k := range kits.Of(g) {
				more, ok := strings.CutPrefix(k.Name, g.Info().ID+"-")
				switch {
				case ok && more == c.Kit:
					have = append(have, fmt.Sprintf("--lang %s --game %s", k.Lang, g.Info().ID))
				case ok:
					all = append(all, fmt.Sprintf("--lang %s --game %s --kit %s", k.Lang, g.Info().ID, more))
				}
			}
		}
		if len(have) == 0 {
			return usageError{fmt.Errorf("--kit %q: no such kit (the kits beside the starters: %s)", c.Kit, strings.Join(all, "; "))}
		}
		return usageError{fmt.Errorf("--kit %q: there is none for --lang %s --game %s; it exists for %s", c.Kit, c.Lang, c.Game, strings.Join(have, "; "))}
	}
	if err != nil {
		return usageError{err}
	}
	if err := kit.Write(c.Dir); err != nil {
		if errors.Is(err, kits.ErrNotEmpty) {
			return hinted{err, "give a new folder's name, or empty this one; nothing was written"}
		}
		return err
	}
	files, err := kit.Files()
	if err != nil {
		return err
	}
	fmt.Printf("wrote the %s %s kit to %s\n", c.Lang, name, c.Dir)
	if build := firstBlock(files["README.md"]); build != "" {
		fmt.Printf("\nbuild it:\n\n  cd %s\n%s\nthen, in %s: arena check --game %s bot.wasm\n", c.Dir, indent(build), c.Dir, c.Game)
	}
	return nil
}

var shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// firstBlock is the first shell block of a kit's README: its wasm build.
func firstBlock(readme []byte) string {
	m := shBlock.FindSubmatch(readme)
	if m == nil {
		return ""
	}
	return string(m[1])
}

func indent(s string) string {
	out := ""
	for _, line := range regexp.MustCompile("\n").Split(s, -1) {
		if line != "" {
			out += "  " + line + "\n"
		}
	}
	return out
}
