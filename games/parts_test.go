package games_test

import (
	"io/fs"
	"path"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/housebots/hostplay"
)

// TestEveryGameHasItsParts: every registered game brings the parts of
// games/README.md the platform asks it for: a starter kit in every
// language (with its README and source), its house module and one module
// per ladder entry a kit plays, and the decoder its house module reads
// observations with.
func TestEveryGameHasItsParts(t *testing.T) {
	sources := map[string]string{"go": "main.go", "c": "main.c", "rust": "main.rs"}
	for _, g := range games.All() {
		id := g.Info().ID
		t.Run(id, func(t *testing.T) {
			kg, ok := g.(game.KitGame)
			if !ok {
				t.Fatal("no starter kits (Kits, in kits.go)")
			}
			for _, lang := range game.KitLanguages {
				for _, f := range []string{"README.md", sources[lang]} {
					if _, err := fs.Stat(kg.Kits(), path.Join(lang, id, f)); err != nil {
						t.Errorf("the %s starter kit: %v", lang, err)
					}
				}
			}
			lg, ok := g.(game.LadderGame)
			if !ok {
				t.Fatal("no ladder (Ladder and HouseModules, in house.go)")
			}
			if _, ok := g.(hostplay.Game); !ok {
				t.Error("no HouseDecoder for its house module")
			}
			want := []string{game.HouseModule}
			for _, e := range lg.Ladder() {
				if e.Kit != "" {
					want = append(want, game.KitModule(e.Kit))
					if _, err := fs.Stat(kg.Kits(), e.Kit); err != nil {
						t.Errorf("ladder entry %s: its kit: %v", e.Name, err)
					}
				}
			}
			for _, f := range want {
				if _, err := fs.Stat(lg.HouseModules(), f); err != nil {
					t.Errorf("its module %s: %v (go generate ./internal/housebots)", f, err)
				}
			}
		})
	}
}
