package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/clitest"
)

// arenaBin is the command built once for these tests, so they run it exactly
// as a user does.
var arenaBin string

func TestMain(m *testing.M) { clitest.Main(m, ".", &arenaBin) }

// arena runs the command and returns stdout, stderr and the exit status.
func arena(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return arenaIn(t, "", args...)
}

func TestMatchJSONContract(t *testing.T) {
	dir := t.TempDir()
	var replays [2][]byte
	for i := range replays {
		path := filepath.Join(dir, "r"+string(rune('a'+i))+".json")
		out, errOut, code := arena(t, "match", "--game", "dots-and-boxes", "--seed", "1",
			"--bot", "builtin:greedy", "--bot", "builtin:random", "--json", "--replay", path)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var res struct {
			Game      string
			Seed      uint64
			Turns     int
			Scores    []int
			Placement []int
			Statuses  []map[string]int
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		if res.Game != "dots-and-boxes" || res.Seed != 1 || res.Turns != 60 || len(res.Scores) != 2 ||
			res.Scores[0]+res.Scores[1] != 25 || len(res.Placement) != 2 || len(res.Statuses) != 2 {
			t.Fatalf("result %+v", res)
		}
		if n := res.Statuses[0]["ok"] + res.Statuses[0]["ignored"]; n != 60 {
			t.Fatalf("seat 0 statuses %v", res.Statuses[0])
		}
		var err error
		if replays[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		if out, _, code := arena(t, "replay", "verify", path); code != 0 || !strings.Contains(out, "ok") {
			t.Fatalf("verify: exit %d %s", code, out)
		}
	}
	if !bytes.Equal(replays[0], replays[1]) {
		t.Fatal("the same command twice wrote different replays")
	}
	// One recorded action changed: verify must fail.
	edited := bytes.Replace(replays[0], []byte(`"action":{"orient":"V","r":2,"c":5}`), []byte(`"action":{"orient":"H","r":5,"c":4}`), 1)
	if bytes.Equal(edited, replays[0]) {
		t.Fatal("test assumption: turn 1 draws V(2,5); the golden game changed")
	}
	bad := filepath.Join(dir, "edited.json")
	os.WriteFile(bad, edited, 0o644)
	if _, errOut, code := arena(t, "replay", "verify", bad); code != 1 || !strings.Contains(errOut, "FAILED") {
		t.Fatalf("verify of an edited replay: exit %d, %s", code, errOut)
	}
}

func TestMatchShowsTheBoard(t *testing.T) {
	out, errOut, code := arena(t, "match", "--game", "dots-and-boxes", "--seed", "3", "--bot", "builtin:chains", "--bot", "builtin:greedy")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"•───•", "60 turns", "1. seat", "builtin:chains", "ok:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour codes written to a pipe")
	}
}

func TestBadInputSaysWhatToFix(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"match", "--game", "chess", "--bot", "builtin:random", "--bot", "builtin:random"}, `unknown game "chess"`},
		{[]string{"match", "--game", "dots-and-boxes", "--bot", "builtin:random"}, "not 1"},
		{[]string{"match", "--game", "dots-and-boxes", "--bot", "builtin:nobody", "--bot", "builtin:random"}, `no house bot "nobody"`},
		{[]string{"match", "--game", "dots-and-boxes", "--bot", "random", "--bot", "builtin:random"}, "want KIND:ARG"},
		{[]string{"match", "--game", "dots-and-boxes", "--bot", "exec:/no/such/program", "--bot", "builtin:random"}, "no such file"},
		{[]string{"match", "--game", "dots-and-boxes", "--param", "rows=7", "--bot", "builtin:random", "--bot", "builtin:random"}, `unknown parameter "rows"`},
		{[]string{"replay", "verify", "main.go"}, "not a replay"},
	} {
		_, errOut, code := arena(t, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("arena %v: exit %d, stderr %q, want it to say %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestListings(t *testing.T) {
	out, _, code := arena(t, "games")
	if code != 0 || !strings.Contains(out, "dots-and-boxes") {
		t.Fatalf("games: %s", out)
	}
	out, _, code = arena(t, "bots")
	if code != 0 || !strings.Contains(out, "builtin:chains") || !strings.Contains(out, "wasm:PATH") {
		t.Fatalf("bots: %s", out)
	}
}

func TestTournamentJSON(t *testing.T) {
	out, errOut, code := arena(t, "tournament", "--game", "dots-and-boxes",
		"--bot", "builtin:random", "--bot", "builtin:greedy", "--bot", "builtin:chains", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Standings []struct {
			Bot    string
			Points int
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Standings) != 3 || res.Standings[0].Bot != "builtin:chains" || res.Standings[2].Bot != "builtin:random" {
		t.Fatalf("standings %+v", res.Standings)
	}
}

func TestReplayRerunExecBot(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "stubborn.sh")
	// A real program whose answers are all the same refusal: deterministic,
	// so a re-run must give exactly the recorded answers.
	os.WriteFile(script, []byte("#!/bin/sh\nwhile read line; do echo '{\"orient\":\"H\",\"r\":0,\"c\":0}'; done\n"), 0o755)
	path := filepath.Join(dir, "r.json")
	if _, errOut, code := arena(t, "match", "--game", "dots-and-boxes", "--seed", "4",
		"--bot", "exec:"+script, "--bot", "builtin:greedy", "--replay", path); code != 0 {
		t.Fatalf("match: exit %d: %s", code, errOut)
	}
	out, errOut, code := arena(t, "replay", "rerun", "--allow-native", path)
	if code != 0 || !strings.Contains(out, "ok") || !strings.Contains(errOut, "seat 0 runs the native program") {
		t.Fatalf("rerun: exit %d: %s %s", code, out, errOut)
	}
	data, _ := os.ReadFile(path)
	edited := bytes.Replace(data, []byte(`"answer":"{\"orient\":\"H\",\"r\":0,\"c\":0}"`), []byte(`"answer":"{}"`), 1)
	os.WriteFile(path, edited, 0o644)
	if _, errOut, code := arena(t, "replay", "rerun", "--allow-native", path); code != 1 || !strings.Contains(errOut, "answered") {
		t.Fatalf("rerun of an edited replay: exit %d: %s", code, errOut)
	}
}

// TestExecTimeout: --exec-timeout is an exec: bot's wall-clock limit per
// answer, in a match and in a tournament. The bot thinks 600 ms before its
// first answer: a timeout under a 100 ms limit, none under 10 s.
func TestExecTimeout(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow.sh")
	os.WriteFile(slow, []byte("#!/bin/sh\nread line; sleep 0.6; echo '{}'\nwhile read line; do echo '{}'; done\n"), 0o755)
	for _, tc := range []struct {
		cmd, limit string
		timeout    bool
	}{
		{"match", "100ms", true},
		{"match", "10s", false},
		{"tournament", "100ms", true},
	} {
		cmdArgs := []string{tc.cmd, "--game", "dots-and-boxes", "--bot", "exec:" + slow, "--bot", "builtin:greedy", "--exec-timeout", tc.limit, "--json"}
		if tc.cmd == "tournament" {
			cmdArgs = append(cmdArgs, "--boards", "1", "--parallel", "1")
		}
		out, errOut, code := arena(t, cmdArgs...)
		if code != 0 {
			t.Fatalf("%s --exec-timeout %s: exit %d: %s", tc.cmd, tc.limit, code, errOut)
		}
		if got := strings.Contains(out, `"timeout":`); got != tc.timeout {
			t.Errorf("%s --exec-timeout %s: a timeout %v, want %v: %s", tc.cmd, tc.limit, got, tc.timeout, out)
		}
	}
}

// TestEveryGame plays each game from the command line with its house bots
// (its first two, in turn), at every player count, and verifies the replay.
func TestEveryGame(t *testing.T) {
	type match struct {
		game string
		bots []string
	}
	var matches []match
	for _, g := range games.All() {
		hb := g.HouseBots()
		for _, n := range g.Info().Players {
			m := match{game: g.Info().ID}
			for seat := range n {
				m.bots = append(m.bots, "builtin:"+hb[(seat+1)%min(2, len(hb))].Name)
			}
			matches = append(matches, m)
		}
	}
	for _, tc := range matches {
		t.Run(fmt.Sprintf("%s/%d", tc.game, len(tc.bots)), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.json")
			args := []string{"match", "--game", tc.game, "--seed", "2", "--json", "--replay", path}
			for _, b := range tc.bots {
				args = append(args, "--bot", b)
			}
			out, errOut, code := arena(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var res struct {
				Turns     int
				Placement []int
				Statuses  []map[string]int
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			if res.Turns == 0 || len(res.Placement) != len(tc.bots) || len(res.Statuses) != len(tc.bots) {
				t.Fatalf("result %s", out)
			}
			for seat, st := range res.Statuses {
				for status := range st {
					if status != "ok" && status != "ignored" {
						t.Errorf("house bot in seat %d answered %v", seat, st)
					}
				}
			}
			if _, errOut, code := arena(t, "replay", "verify", path); code != 0 {
				t.Fatalf("verify: %s", errOut)
			}
		})
	}
}

// TestBoardFromContestFile starts Lines and Boxes from a 2006 input file.
func TestBoardFromContestFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "board.txt")
	os.WriteFile(file, []byte("1 5 7\n1 0 60.00\n2 0 60.00\n0 A2 A3\n0 A2 B2\n0 B2 B3\n0 A3 B3\n"), 0o644)
	path := filepath.Join(t.TempDir(), "r.json")
	_, errOut, code := arena(t, "match", "--game", "lines-and-boxes", "--param", "board=@"+file,
		"--bot", "builtin:greedy", "--bot", "builtin:random", "--replay", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"board":"A2-A3,A2-B2,B2-B3,A3-B3","cols":"7"`) {
		t.Fatalf("the replay does not carry the file's board: %.300s", data)
	}
	if _, errOut, code := arena(t, "match", "--game", "lines-and-boxes", "--param", "board=@/no/such/file",
		"--bot", "builtin:greedy", "--bot", "builtin:random"); code == 0 || !strings.Contains(errOut, "parameter board") {
		t.Fatalf("a missing board file: exit %d, %s", code, errOut)
	}
}
