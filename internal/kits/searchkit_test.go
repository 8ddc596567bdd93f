package kits_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/kits"
	"github.com/arenabots/arena/replay"
)

// TestSearchKit writes the Dots and Boxes search kit into a folder outside
// the repository, builds it with its README's commands, checks the module as
// an upload is checked, and plays it against builtin:chains: every answer
// must be legal and within the fuel (no "fuel" or "timeout" status, which
// play reports), though the search thinks until its tank is nearly empty.
func TestSearchKit(t *testing.T) {
	dnb, err := games.Lookup("dots-and-boxes")
	if err != nil {
		t.Fatal(err)
	}
	kit, err := kits.Find(dnb, "go", "dots-and-boxes-search")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "mybot")
	if err := kit.Write(dir); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := shellBlocks(string(readme))
	if len(blocks) < 3 {
		t.Fatalf("the README has %d shell blocks, want the wasm build, the native build and the arena commands", len(blocks))
	}
	runBlock(t, dir, blocks[0])
	runBlock(t, dir, blocks[1])
	if out := runBlock(t, dir, blocks[2]); !strings.Contains(out, "PASS") {
		t.Fatalf("the README's arena commands printed:\n%s", out)
	}
	g := kitGame{"dots-and-boxes", "builtin:chains", func(t *testing.T, r *replay.Replay) { wantTurns(t, r, 60) }}
	r := play(t, g, "wasm:"+filepath.Join(dir, "bot.wasm"), filepath.Join(dir, "wasm.replay"))
	g.complete(t, r)
	// It must think, not fall back on the first edge: it spends well over a
	// trivial bot's fuel on some moves.
	most := int64(0)
	for _, turn := range r.Turns {
		for _, s := range turn.Seats {
			if s.Seat == 0 {
				most = max(most, s.Fuel)
			}
		}
	}
	if most < 3_000_000 {
		t.Errorf("the most fuel spent on one answer is %d: the search did not run", most)
	}
}
