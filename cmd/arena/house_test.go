package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/replay"
)

// TestHouseSpec: house:NAME plays exactly the module arena serve seeds for
// @house (the replay names it by that module's sha256), metered like an
// upload; a name that is not on the game's ladder is refused with the names
// that are.
func TestHouseSpec(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	out, errOut, code := arena(t, "match", "--game", "dots-and-boxes", "--seed", "3",
		"--bot", "house:greedy", "--bot", "builtin:random", "--json", "--replay", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Statuses []map[string]int
		Fuel     []struct{ Answers int }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Statuses[0]["ok"] == 0 || res.Fuel[0].Answers == 0 {
		t.Fatalf("%v: %s", err, out)
	}
	r, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := housebots.Module("dots-and-boxes", "greedy")
	if err != nil {
		t.Fatal(err)
	}
	if r.Bots[0].SHA256 != want.SHA256 || r.Bots[0].CostModel == 0 {
		t.Fatalf("seat 0 is %+v; want the ladder's module %s, metered", r.Bots[0], want.SHA256)
	}
	// A replay of it re-runs: the seat is the embedded module with its hash.
	if out, errOut, code := arena(t, "replay", "rerun", path); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("rerun: exit %d: %s%s", code, out, errOut)
	}
	_, errOut, code = arena(t, "match", "--game", "dots-and-boxes", "--bot", "house:nope", "--bot", "builtin:random")
	if code == 0 || !strings.Contains(errOut, "entries: random, greedy") {
		t.Fatalf("house:nope: exit %d, %s", code, errOut)
	}
}
