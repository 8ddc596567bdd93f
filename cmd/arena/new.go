package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/arenabots/arena/examples"
)

type newCmd struct {
	Lang string `required:"" enum:"go,c,rust" help:"The kit's language: go, c or rust."`
	Game string `required:"" help:"Game id (see 'arena games')."`
	Kit  string `help:"A kit other than the starter: 'search' (Go, dots-and-boxes) is the house's search engine within the standard fuel."`
	Dir  string `arg:"" help:"The folder to write: new, or empty."`
}

func (c *newCmd) Run() error {
	if _, err := lookupGame(c.Game); err != nil {
		return err
	}
	// A larger kit sits beside the game's starter, named GAME-KIT.
	kit := c.Game
	if c.Kit != "" {
		kit += "-" + c.Kit
	}
	files, err := examples.Files(c.Lang, kit)
	if err != nil && c.Kit != "" && slices.Contains(examples.Games(c.Lang), c.Game) {
		// The language and game are fine: the kit is what is missing.
		var have []string
		for _, lang := range examples.Languages() {
			for _, k := range examples.Games(lang) {
				if strings.HasSuffix(k, "-"+c.Kit) {
					have = append(have, fmt.Sprintf("--lang %s --game %s", lang, strings.TrimSuffix(k, "-"+c.Kit)))
				}
			}
		}
		if len(have) == 0 {
			return usageError{fmt.Errorf("--kit %q: no such kit", c.Kit)}
		}
		return usageError{fmt.Errorf("--kit %q: there is none for --lang %s --game %s; it exists for %s", c.Kit, c.Lang, c.Game, strings.Join(have, "; "))}
	}
	if err != nil {
		return usageError{err}
	}
	if err := examples.Write(c.Lang, kit, c.Dir); err != nil {
		if errors.Is(err, examples.ErrNotEmpty) {
			return hinted{err, "give a new folder's name, or empty this one; nothing was written"}
		}
		return err
	}
	fmt.Printf("wrote the %s %s kit to %s\n", c.Lang, kit, c.Dir)
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
