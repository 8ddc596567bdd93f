package housebots_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/internal/housebots/modbuild"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// TestModulesAreFresh rebuilds every committed module from its sources and
// fails when the committed bytes differ: a source change (a house bot, the
// search kit, the games they include) must come with the regenerated
// modules, or the ladder would play old code.
func TestModulesAreFresh(t *testing.T) {
	root, err := modbuild.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range housebots.Builds() {
		t.Run(b.Game+"/"+b.File, func(t *testing.T) {
			fresh, err := b.Module(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			path, err := b.Path(root)
			if err != nil {
				t.Fatal(err)
			}
			committed, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			old, err := modbuild.Gunzip(committed)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(old, fresh) || !bytes.Equal(committed, modbuild.Gzip(fresh)) {
				t.Fatalf("%s (%d bytes) is not a build of %s as it stands (%d bytes): run `go generate %s` and commit the result",
					path, len(old), b.Package, len(fresh), b.Dir)
			}
		})
	}
}

// TestEntries: every entry names a house bot of its game, each game's first
// (smoke) house bot is on the ladder, and every entry's module is distinct
// and selects its bot.
func TestEntries(t *testing.T) {
	bots, err := housebots.Ladder()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	perGame := map[string]int{}
	for _, b := range bots {
		g, err := games.Lookup(b.Game)
		if err != nil {
			t.Fatalf("%s/%s: %v", b.Game, b.Name, err)
		}
		found := false
		for _, hb := range g.HouseBots() {
			found = found || hb.Name == b.Name
		}
		if !found {
			t.Errorf("%s/%s: no native house bot of that name", b.Game, b.Name)
		}
		if seen[b.SHA256] {
			t.Errorf("%s/%s: the same module as another entry", b.Game, b.Name)
		}
		seen[b.SHA256] = true
		if perGame[b.Game] == 0 && b.Name != g.HouseBots()[0].Name {
			t.Errorf("%s: the first entry is %s, want the smoke match's house bot %s", b.Game, b.Name, g.HouseBots()[0].Name)
		}
		perGame[b.Game]++
	}
	for _, g := range games.All() {
		if perGame[g.Info().ID] == 0 {
			t.Errorf("%s has no ladder entry", g.Info().ID)
		}
	}
}

func TestSelect(t *testing.T) {
	var lg game.LadderGame
	for _, g := range games.All() {
		if lg, _ = g.(game.LadderGame); lg != nil {
			break
		}
	}
	if lg == nil {
		t.Fatal("no game has a ladder")
	}
	gz, err := fs.ReadFile(lg.HouseModules(), game.HouseModule)
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := modbuild.Gunzip(gz)
	if err != nil {
		t.Fatal(err)
	}
	id, bot0, bot1 := lg.Info().ID, lg.HouseBots()[0].Name, lg.HouseBots()[1].Name
	sel, err := housebots.Select(wasm, id, bot1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel) != len(wasm) || !bytes.Contains(sel, []byte(fmt.Sprintf("arena-house-bot:%-48s", id+"/"+bot1))) {
		t.Fatal("the selection is not written in place")
	}
	if _, err := housebots.Select(sel, id, bot0); err == nil {
		t.Error("a selected module was selected again")
	}
	if _, err := housebots.Select(wasm, id, strings.Repeat("x", 48)); err == nil {
		t.Error("a selection longer than its room was written")
	}
	// An unselected module, or one selected for another game, refuses to
	// play rather than guess.
	other := "another-game"
	for _, g := range games.All() {
		if g.Info().ID != id {
			other = g.Info().ID
		}
	}
	wrong, err := housebots.Select(wasm, other, bot0)
	if err != nil {
		t.Fatal(err)
	}
	for i, mod := range [][]byte{wasm, wrong} {
		path := filepath.Join(t.TempDir(), "house.wasm")
		if err := os.WriteFile(path, mod, 0o644); err != nil {
			t.Fatal(err)
		}
		r := play(t, id, 1, "wasm:"+path, "builtin:"+bot0)
		if n := r.Result.Statuses[0][game.OK]; n != 0 {
			t.Errorf("module %d: the unselected module gave %d ok answers", i, n)
		}
		if len(r.Logs) == 0 || !strings.Contains(r.Logs[0].Text, "no house bot is selected") {
			t.Errorf("module %d: its log says %+v", i, r.Logs)
		}
	}
}

// TestLadderWithinFuel plays every ladder entry against its native
// counterpart, in both seats (Grid Royale also four-handed): every answer
// of the wasm bot must be ok (or ignored, when it is not its turn), never
// fuel, timeout or crash. The seeds are fixed, so the matches are too.
func TestLadderWithinFuel(t *testing.T) {
	bots, err := housebots.Ladder()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, b := range bots {
		t.Run(b.Game+"/"+b.Name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, b.Game+"-"+b.Name+".wasm")
			if err := os.WriteFile(path, b.Wasm, 0o644); err != nil {
				t.Fatal(err)
			}
			wasm, native := "wasm:"+path, "builtin:"+b.Name
			games := [][]string{{wasm, native}, {native, wasm}}
			// Small enough for the test's time, large enough that the
			// searches think under their fuel budget (the strength runs of
			// docs/bots-strength.md play whole matches on default boards).
			var params game.Params
			switch b.Game {
			case "lines-and-boxes":
				params = game.Params{"rows": "4", "cols": "5"}
			case "grid-royale":
				params = game.Params{"max_turns": "80"}
				games = append(games, []string{native, wasm, native, wasm})
			}
			for i, specs := range games {
				r := playParams(t, b.Game, uint64(11+i), params, specs...)
				var most int64
				for _, turn := range r.Turns {
					for _, s := range turn.Seats {
						if specs[s.Seat] != wasm {
							continue
						}
						most = max(most, s.Fuel)
						if s.Status != game.OK && s.Status != game.Ignored {
							t.Errorf("match %d, turn %d, seat %d: %s (%s)", i, turn.Turn, s.Seat, s.Status, s.Reason)
						}
					}
				}
				t.Logf("match %d (%d seats): scores %v, the wasm bot's most fuel for one answer %d", i, len(specs), r.Result.Scores, most)
			}
		})
	}
}

func play(t *testing.T, gameID string, seed uint64, specs ...string) *replay.Replay {
	t.Helper()
	return playParams(t, gameID, seed, nil, specs...)
}

func playParams(t *testing.T, gameID string, seed uint64, params game.Params, specs ...string) *replay.Replay {
	t.Helper()
	g, err := games.Lookup(gameID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := match.Runner{}.Play(context.Background(), g, game.Config{Seed: seed, Players: len(specs), Params: params}, local.Seats(spec.MustParseAll(specs...)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
