package gametest

import (
	"fmt"
	"io/fs"
	"regexp"
	"text/template/parse"

	"github.com/arenabots/arena/game"
)

// A siteGame is a game with its part of the web site (docs/site.md, "A
// game's board").
type siteGame interface {
	Site() fs.FS
}

// registers finds the boards a script registers: Arena.boards['ID'] = ...
var registers = regexp.MustCompile(`Arena\.boards\[\s*['"]([^'"]*)['"]\s*\]\s*=`)

// CheckSite checks a game's part of the site: a Site method whose files
// hold board.js, registering the game's own id and no other, and
// rules.html, a template fragment that parses. The site executes the
// fragment with its own functions, which this package does not know, so
// the functions it names are not checked here (the site checks them when
// it starts).
func CheckSite(g game.Game) error {
	id := g.Info().ID
	sg, ok := g.(siteGame)
	if !ok {
		return fmt.Errorf("%s: no Site method giving the files of its web/ folder", id)
	}
	site := sg.Site()
	js, err := fs.ReadFile(site, "board.js")
	if err != nil {
		return fmt.Errorf("%s: its board: %w", id, err)
	}
	regs := registers.FindAllSubmatch(js, -1)
	if len(regs) != 1 || string(regs[0][1]) != id {
		var got []string
		for _, m := range regs {
			got = append(got, string(m[1]))
		}
		return fmt.Errorf("%s: board.js registers %q; want Arena.boards['%s'] once", id, got, id)
	}
	rules, err := fs.ReadFile(site, "rules.html")
	if err != nil {
		return fmt.Errorf("%s: its rules page: %w", id, err)
	}
	if len(rules) == 0 {
		return fmt.Errorf("%s: rules.html is empty", id)
	}
	tree := parse.New("rules.html")
	tree.Mode = parse.SkipFuncCheck
	if _, err := tree.Parse(string(rules), "", "", map[string]*parse.Tree{}); err != nil {
		return fmt.Errorf("%s: rules.html: %w", id, err)
	}
	return nil
}
