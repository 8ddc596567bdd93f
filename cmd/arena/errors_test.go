package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/games"
)

// gameIDs are the registry's games, in its order: what the listings and the
// unknown-game message name.
func gameIDs() []string {
	var ids []string
	for _, g := range games.All() {
		ids = append(ids, g.Info().ID)
	}
	return ids
}

// arenaIn runs the command in dir ("" for this one) and returns stdout,
// stderr and the exit status.
func arenaIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(arenaBin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

var (
	dnb     = []string{"--game", "dots-and-boxes"}
	twoBots = []string{"--bot", "builtin:random", "--bot", "builtin:greedy"}
)

func args(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestMistakes runs every mistake of the list in docs/cli.md: each gives
// one error line ("arena: error: ..."), for a usage error then one usage
// line, and the documented exit status; none shows Go's formatting of a
// list ("[2]").
func TestMistakes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mybot"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "notwasm.wasm"), []byte("#!/bin/sh\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", nil, 2, "expected one of"},
		{"unknown flag", args([]string{"match"}, dnb, twoBots, []string{"--bots", "x"}), 2, "unknown flag --bots"},
		{"missing flag", args([]string{"match"}, twoBots), 2, "missing flags: --game"},
		{"unknown game", args([]string{"match", "--game", "chess"}, twoBots), 2, `unknown game "chess" (games: ` + strings.Join(gameIDs(), ", ") + `)`},
		{"one bot", args([]string{"match"}, dnb, []string{"--bot", "builtin:random"}), 2, "for 2 players, not 1"},
		{"five bots", args([]string{"match", "--game", "grid-royale"}, twoBots, twoBots, []string{"--bot", "builtin:idle"}), 2, "for 2 or 4 players, not 5"},
		{"spec without kind", args([]string{"match"}, dnb, []string{"--bot", "random", "--bot", "builtin:random"}), 2, "want KIND:ARG with KIND one of builtin, exec, wasm, potm, battlesnake, house (did you mean builtin:random?)"},
		{"module without kind", args([]string{"match"}, dnb, []string{"--bot", "bot.wasm", "--bot", "builtin:random"}), 2, "(did you mean wasm:bot.wasm?)"},
		{"push without a scheme", []string{"push", "--server", "127.0.0.1:8080", "--token", "t", "--game", "dots-and-boxes", "--name", "a", filepath.Join(dir, "notwasm.wasm")}, 2, "starting with http:// or https://"},
		{"unknown kind", args([]string{"match"}, dnb, []string{"--bot", "docker:x", "--bot", "builtin:random"}), 2, `unknown kind "docker"`},
		{"unknown house bot", args([]string{"match"}, dnb, []string{"--bot", "builtin:nobody", "--bot", "builtin:random"}), 2, `no house bot "nobody" (it has: random, greedy, beginner, chains, search-easy, search-medium, search)`},
		{"missing program", args([]string{"match"}, dnb, []string{"--bot", "exec:/no/such/program", "--bot", "builtin:random"}), 2, "no such file"},
		{"exec without ./", args([]string{"match"}, dnb, []string{"--bot", "exec:mybot", "--bot", "builtin:random"}), 2, "write exec:./mybot"},
		{"unknown parameter", args([]string{"match"}, dnb, twoBots, []string{"--param", "rows=7"}), 2, `unknown parameter "rows": the game has no parameters`},
		{"parameter twice", args([]string{"match", "--game", "grid-royale", "--param", "max_turns=9", "--param", "max_turns=10"}, twoBots), 2, "--param max_turns is given twice"},
		{"parameter out of range", args([]string{"match", "--game", "grid-royale", "--param", "max_turns=0", "--bot", "builtin:house", "--bot", "builtin:house"}), 2, "max_turns=0: must be in 1..100000"},
		{"parameter not a number", args([]string{"match", "--game", "lines-and-boxes", "--param", "rows=five", "--bot", "builtin:greedy", "--bot", "builtin:greedy"}), 2, "not an integer"},
		{"parameter beyond the board", args([]string{"match", "--game", "lines-and-boxes", "--param", "predrawn=60", "--bot", "builtin:greedy", "--bot", "builtin:greedy"}), 2, "at most 59 lines"},
		{"parameter without value", args([]string{"match"}, dnb, twoBots, []string{"--param", "rows"}), 2, "want NAME=VALUE"},
		{"bad colour", args([]string{"match"}, dnb, twoBots, []string{"--color", "pink"}), 2, "--color"},
		{"negative watch", args([]string{"match"}, dnb, twoBots, []string{"--watch", "-1s"}), 2, "--watch"},
		{"exec timeout 0", args([]string{"match"}, dnb, twoBots, []string{"--exec-timeout", "0s"}), 2, "--exec-timeout 0s: want a limit above 0"},
		{"tournament exec timeout 0", args([]string{"tournament"}, dnb, twoBots, []string{"--exec-timeout", "0s"}), 2, "--exec-timeout 0s: want a limit above 0"},
		{"missing board file", args([]string{"match", "--game", "lines-and-boxes", "--param", "board=@/no/such/file", "--bot", "builtin:greedy", "--bot", "builtin:random"}), 2, "parameter board"},
		{"missing wasm file", args([]string{"match"}, dnb, []string{"--bot", "wasm:missing.wasm", "--bot", "builtin:random"}), 2, "no such file"},
		{"not a wasm module", args([]string{"match"}, dnb, []string{"--bot", "wasm:notwasm.wasm", "--bot", "builtin:random"}), 1, "not a WebAssembly module"},
		{"boards 0", args([]string{"tournament"}, dnb, twoBots, []string{"--boards", "0"}), 2, "--boards 0: want 1 or more"},
		{"finals 1", args([]string{"tournament"}, dnb, twoBots, []string{"--finals", "1"}), 2, "--finals 1"},
		{"finals above the entries", args([]string{"tournament"}, dnb, twoBots, []string{"--finals", "3"}), 2, "--finals 3"},
		{"final boards without finals", args([]string{"tournament"}, dnb, twoBots, []string{"--final-boards", "2"}), 2, "--final-boards 2"},
		{"parallel below 0", args([]string{"tournament"}, dnb, twoBots, []string{"--parallel=-1"}), 2, "--parallel -1"},
		{"players 3", args([]string{"tournament", "--game", "grid-royale", "--players", "3"}, twoBots, []string{"--bot", "builtin:idle"}), 2, "--players 3: grid-royale is for 2 or 4 players"},
		{"entry twice", args([]string{"tournament"}, dnb, twoBots, []string{"--bot", "builtin:random"}), 2, "entered twice"},
		{"tournament param out of range", args([]string{"tournament", "--game", "lines-and-boxes", "--param", "rows=2", "--bot", "builtin:greedy", "--bot", "builtin:random"}), 2, "rows and cols must be 3 to 8"},
		{"not a replay", []string{"replay", "verify", "errors_test.go"}, 1, "not a replay"},
		{"new: unknown language", []string{"new", "--lang", "cobol", "--game", "dots-and-boxes", "x"}, 2, "--lang"},
		{"new: unknown kit", []string{"new", "--lang", "rust", "--game", "dots-and-boxes", "--kit", "search", "x"}, 2, `--kit "search": there is none for --lang rust --game dots-and-boxes; it exists for --lang go --game dots-and-boxes; --lang c --game dots-and-boxes`},
		{"new: folder not empty", []string{"new", "--lang", "c", "--game", "dots-and-boxes", "."}, 1, "not empty"},
		{"check: unknown game", []string{"check", "--game", "chess", "x.wasm"}, 2, `unknown game "chess"`},
		{"check: missing file", []string{"check", "--game", "dots-and-boxes", "missing.wasm"}, 2, "missing.wasm: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := dir
			if strings.HasPrefix(tc.name, "not a replay") {
				wd = "."
			}
			_, errOut, code := arenaIn(t, wd, tc.args...)
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			if code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, errOut)
			}
			if !strings.HasPrefix(lines[0], "arena: error: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("first line %q, want arena: error: ...%s...", lines[0], tc.want)
			}
			if strings.Contains(lines[0], "[") {
				t.Errorf("Go formatting in %q", lines[0])
			}
			wantLines := 1
			if tc.code == 2 {
				wantLines = 2
				if !strings.HasPrefix(lines[len(lines)-1], "usage: arena ") {
					t.Errorf("no usage line: %q", errOut)
				}
			}
			if strings.HasPrefix(lines[len(lines)-1], "hint: ") || (len(lines) > 1 && strings.HasPrefix(lines[1], "hint: ")) {
				wantLines++
			}
			if len(lines) != wantLines {
				t.Errorf("%d lines on stderr, want %d:\n%s", len(lines), wantLines, errOut)
			}
		})
	}
}

// TestExecBotHints checks the hints for an exec bot that writes debug text
// to stdout (it falls a turn behind) and for one that fails every turn: the
// match runs to its end, exit 0, and the failing bot adds no error line.
func TestExecBotHints(t *testing.T) {
	dir := t.TempDir()
	chatty := filepath.Join(dir, "chatty.sh")
	os.WriteFile(chatty, []byte("#!/bin/sh\nwhile read line; do echo 'thinking hard'; echo '{\"orient\":\"H\",\"r\":0,\"c\":0}'; done\n"), 0o755)
	failing := filepath.Join(dir, "failing.sh")
	os.WriteFile(failing, []byte("#!/bin/sh\nexit 1\n"), 0o755)

	out, errOut, code := arenaIn(t, dir, args([]string{"match"}, dnb, []string{"--bot", "exec:" + chatty, "--bot", "builtin:greedy"})...)
	if code != 0 || !strings.Contains(errOut, `hint: seat 0 wrote "thinking hard" to stdout`) || !strings.Contains(out, "malformed:") {
		t.Errorf("chatty bot: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = arenaIn(t, dir, args([]string{"match"}, dnb, []string{"--bot", "exec:" + failing, "--bot", "builtin:greedy"})...)
	if code != 0 || strings.Contains(errOut, "error") || !strings.Contains(out, "retired:") {
		t.Errorf("failing bot: exit %d\n%s\n%s", code, out, errOut)
	}
}

// buildKit builds the Go Dots and Boxes kit as wasm for goos into dir.
func buildKit(t *testing.T, dir, goos string) string {
	t.Helper()
	wasm := filepath.Join(dir, goos+".wasm")
	build := exec.Command("go", "build", "-o", wasm, ".")
	build.Dir = "../../games/dotsandboxes/kits/go/dots-and-boxes"
	build.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return wasm
}

// TestWasmRefusalHint builds a bot for GOOS=js, the usual wrong target.
func TestWasmRefusalHint(t *testing.T) {
	dir := t.TempDir()
	wasm := buildKit(t, dir, "js")
	_, errOut, code := arenaIn(t, dir, args([]string{"match"}, dnb, []string{"--bot", "wasm:" + wasm, "--bot", "builtin:greedy"})...)
	if code != 1 || !strings.Contains(errOut, "hint: this module was built with GOOS=js") {
		t.Errorf("match: exit %d: %s", code, errOut)
	}
	out, _, code := arenaIn(t, dir, "check", "--game", "dots-and-boxes", wasm)
	if code != 1 || !strings.Contains(out, "REFUSED") || !strings.Contains(out, "GOOS=wasip1") || !strings.Contains(out, "FAIL") {
		t.Errorf("check: exit %d: %s", code, out)
	}
}

// TestCheckKit checks the Go kit through `arena check`, as text and JSON.
func TestCheckKit(t *testing.T) {
	dir := t.TempDir()
	wasm := buildKit(t, dir, "wasip1")
	out, errOut, code := arenaIn(t, dir, "check", "--game", "dots-and-boxes", wasm)
	for _, want := range []string{"sandbox limits: ok", "start-up fuel:", "smoke match in seat 0", "smoke match in seat 1", "fuel per answer: min", "% of the 20.00M tank", "PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q", want)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = arenaIn(t, dir, "check", "--game", "dots-and-boxes", "--json", wasm)
	var rep struct {
		Passed      bool  `json:"passed"`
		StartupFuel int64 `json:"startup_fuel"`
		Matches     []struct {
			Fuel struct{ Min, Median, Max, Tank int64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.Passed || rep.StartupFuel == 0 || len(rep.Matches) != 2 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
}

// TestWatch checks --watch on a pipe: no control codes, one board per turn
// and the final board once; with --json, the boards go to stderr and stdout
// stays one JSON object.
func TestWatch(t *testing.T) {
	out, errOut, code := arena(t, args([]string{"match", "--watch", "1ns"}, dnb, twoBots)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("control codes written to a pipe")
	}
	if n := strings.Count(out, "edges drawn"); n != 60 {
		t.Errorf("%d boards drawn for 60 turns", n)
	}
	if n := strings.Count(out, "60 of 60 edges drawn"); n != 1 {
		t.Errorf("the final board drawn %d times", n)
	}
	out, errOut, code = arena(t, args([]string{"match", "--watch", "1ns", "--json"}, dnb, twoBots)...)
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("exit %d, stdout %q: %v", code, out, err)
	}
	if n := strings.Count(errOut, "edges drawn"); n != 60 {
		t.Errorf("%d boards on stderr for 60 turns", n)
	}
}

func TestVersionAndListingsJSON(t *testing.T) {
	out, _, code := arena(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "arena ") {
		t.Errorf("--version: exit %d: %q", code, out)
	}
	out, _, code = arena(t, "games", "--json")
	var games []struct {
		ID      string
		Players []int
		Params  []struct{ Name, Default string }
		Fuel    struct {
			PerTurn int64 `json:"per_turn"`
		}
		Kits []string
	}
	if err := json.Unmarshal([]byte(out), &games); err != nil || code != 0 || len(games) != len(gameIDs()) ||
		games[0].ID != "dots-and-boxes" || games[2].Players[1] != 4 || len(games[2].Params) == 0 ||
		games[0].Fuel.PerTurn != 5_000_000 || len(games[0].Kits) != 3 {
		t.Errorf("games --json: %v: %s", err, out)
	}
	out, _, code = arena(t, "bots", "--json")
	var bots struct {
		Kinds []struct{ Spec string }
		House []struct{ Game, Spec string }
	}
	if err := json.Unmarshal([]byte(out), &bots); err != nil || code != 0 || len(bots.Kinds) != 6 || len(bots.House) < 3 {
		t.Errorf("bots --json: %v: %s", err, out)
	}
}

// TestMatchShowsFuel checks the summary's fuel line for a wasm bot, and
// the per-seat fuel of --json.
func TestMatchShowsFuel(t *testing.T) {
	dir := t.TempDir()
	wasm := buildKit(t, dir, "wasip1")
	out, errOut, code := arena(t, args([]string{"match"}, dnb, []string{"--bot", "wasm:" + wasm, "--bot", "builtin:greedy"})...)
	if code != 0 || !strings.Contains(out, "seat 0 fuel per answer: min ") || strings.Contains(out, "seat 1 fuel") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = arena(t, args([]string{"match", "--json"}, dnb, []string{"--bot", "wasm:" + wasm, "--bot", "builtin:greedy"})...)
	var res struct {
		Fuel []struct{ Answers int }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Fuel) != 2 || res.Fuel[0].Answers != 60 || res.Fuel[1].Answers != 0 {
		t.Fatalf("%v: %s", err, out)
	}
}

// TestTournamentOutputs checks --results (one line per game, written as it
// goes), --replays (every game's replay, each verifies) and the games of
// --json; and that a bad last entry fails before any game.
func TestTournamentOutputs(t *testing.T) {
	dir := t.TempDir()
	results, replays := filepath.Join(dir, "results.jsonl"), filepath.Join(dir, "replays")
	out, errOut, code := arena(t, args([]string{"tournament", "--boards", "1", "--json", "--results", results, "--replays", replays},
		dnb, twoBots, []string{"--bot", "builtin:chains"})...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Games []struct {
			Round, Index int
			Bots         []string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Games) != 6 {
		t.Fatalf("%v: %s", err, out)
	}
	f, err := os.Open(results)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		var g struct{ Round, Index, Turns int }
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil || g.Turns != 60 {
			t.Fatalf("results line %q: %v", sc.Text(), err)
		}
	}
	if lines != 6 {
		t.Fatalf("%d result lines, want 6", lines)
	}
	files, _ := filepath.Glob(filepath.Join(replays, "round-1-game-*.json"))
	if len(files) != 6 {
		t.Fatalf("%d replays kept, want 6", len(files))
	}
	if _, errOut, code := arena(t, "replay", "verify", files[0]); code != 0 {
		t.Fatalf("verify %s: %s", files[0], errOut)
	}

	os.Remove(results)
	_, errOut, code = arena(t, args([]string{"tournament", "--results", results}, dnb, twoBots, []string{"--bot", "builtin:nobody"})...)
	data, _ := os.ReadFile(results)
	if code != 2 || !strings.Contains(errOut, `no house bot "nobody"`) || len(data) != 0 {
		t.Fatalf("a bad last entry: exit %d, %d bytes of results: %s", code, len(data), errOut)
	}
}

// TestNewSearchKit: --kit picks a larger kit beside the game's starter.
func TestNewSearchKit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mybot")
	out, errOut, code := arenaIn(t, ".", "new", "--lang", "go", "--game", "dots-and-boxes", "--kit", "search", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "dots-and-boxes-search kit") {
		t.Errorf("output %q does not name the kit", out)
	}
	for _, name := range []string{"main.go", "search.go", "README.md", "go.mod"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the search kit lacks %s: %v", name, err)
		}
	}
}
