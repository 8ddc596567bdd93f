package web

import (
	"fmt"
	"html/template"
	"io/fs"
	"runtime"
	"strings"

	"github.com/arenabots/arena/game"
)

// templateFuncs are the functions of every template, the games' fragments
// (rules.html, thumb.html) included.
var templateFuncs = template.FuncMap{
	"seatName": func(i int) string { return fmt.Sprintf("seat %d", i) },
	"join":     strings.Join,
	"add":      func(a, b int) int { return a + b },
	"mul":      func(a, b int) int { return a * b },
	"letter":   func(i int) string { return string(rune('A' + i)) },
	"thousands": func(n int64) string {
		s := fmt.Sprint(n)
		var b strings.Builder
		for i, c := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		return b.String()
	},
	"seq": func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	},
	"commandName":     commandName,
	"commandPlatform": func() string { return runtime.GOOS + "/" + runtime.GOARCH },
	"commandIsExe":    func() bool { return runtime.GOOS == "windows" },
	// playerCounts says a game's player counts for people: "2 or 4",
	// "2 to 8".
	"playerCounts": func(ps []int) string { return game.Info{Players: ps}.PlayerCounts() },
	"maxPlayers": func(ps []int) int {
		m := 0
		for _, p := range ps {
			m = max(m, p)
		}
		return m
	},
}

// parseTemplates pairs the layout with every page.
func (s *Site) parseTemplates() error {
	// kits lists the starter kits of a game, as language and kit name:
	// the game's own, then larger ones (GAME-KIT); bound to this site,
	// whose games they are.
	siteFuncs := template.FuncMap{"kits": s.gameKits}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return err
	}
	s.pages = map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New("layout").Funcs(templateFuncs).Funcs(siteFuncs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return fmt.Errorf("template %s: %w", n, err)
		}
		s.pages[base] = t
	}
	return nil
}
