package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/replay"
)

// loggingBot is a real program that writes terminal escapes and invalid
// UTF-8 to stderr and always names the same edge.
const loggingBot = "#!/bin/sh\nwhile read line; do printf 'think \\033[31mred\\033]0;title\\007 \\377\\n' >&2; echo '{\"orient\":\"H\",\"r\":0,\"c\":0}'; done\n"

func recordLoggingMatch(t *testing.T) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	script := filepath.Join(dir, "logger.sh")
	if err := os.WriteFile(script, []byte(loggingBot), 0o755); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "r.json")
	if _, errOut, code := arena(t, "match", "--game", "dots-and-boxes", "--seed", "3",
		"--bot", "exec:"+script, "--bot", "builtin:greedy", "--replay", path); code != 0 {
		t.Fatalf("match: exit %d: %s", code, errOut)
	}
	return dir, path
}

func TestReplayKeepsAndPrintsLogs(t *testing.T) {
	_, path := recordLoggingMatch(t)
	out, errOut, code := arena(t, "replay", "logs", path, "--seat", "0")
	if code != 0 {
		t.Fatalf("logs: exit %d: %s", code, errOut)
	}
	// Not a terminal: the exact bytes, as kept.
	if !strings.HasPrefix(out, "think \x1b[31mred\x1b]0;title\x07 \xff\n") || strings.Count(out, "think") != 60 {
		t.Fatalf("seat 0 log: %q", out[:min(len(out), 200)])
	}
	if out, _, code := arena(t, "replay", "logs", path, "--seat", "1"); code != 0 || out != "" {
		t.Fatalf("a house bot's log: exit %d, %q", code, out)
	}
	if _, errOut, code := arena(t, "replay", "logs", path, "--seat", "2"); code == 0 || !strings.Contains(errOut, "seats 0 to 1") {
		t.Fatalf("seat 2: exit %d, %s", code, errOut)
	}
}

func TestEscapeControls(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\n":            "plain\ttext\n",
		"\x1b[2J\x1b]0;pwned\x07":  `\x1b[2J\x1b]0;pwned\a`,
		"bad \xff\xc3 utf8":        `bad \xff\xc3 utf8`,
		"c1 \u009b31m rtl \u202e!": `c1 \u009b31m rtl \u202e!`,
		"carriage\rreturn":         `carriage\rreturn`,
		"héllo ✓":                  "héllo ✓",
	} {
		if got := string(escapeControls([]byte(in))); got != want {
			t.Errorf("escapeControls(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReplayShowDrawsAnyTurn(t *testing.T) {
	_, path := recordLoggingMatch(t)
	out, errOut, code := arena(t, "replay", "show", path, "--turn", "3", "--color", "never")
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"after turn 3 of 60", "3 of 60 edges drawn",
		`seat 0 "exec:`, "illegal", `answer "{\"orient\":\"H\",\"r\":0,\"c\":0}"`, `("H(0, 0) is already drawn")`,
		`seat 1 "builtin:greedy"`, "ignored", "fuel 0", "scores [0 0]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show --turn 3 lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("--color never wrote an escape")
	}
	end, _, _ := arena(t, "replay", "show", path)
	if !strings.Contains(end, "after turn 60 of 60") || !strings.Contains(end, "60 of 60 edges drawn") {
		t.Errorf("show without --turn:\n%s", end)
	}
	if _, errOut, code := arena(t, "replay", "show", path, "--turn", "61"); code == 0 || !strings.Contains(errOut, "turns 0 to 60") {
		t.Errorf("show --turn 61: exit %d: %s", code, errOut)
	}
}

func TestMatchPlaysOnFromARecordedTurn(t *testing.T) {
	dir, path := recordLoggingMatch(t)
	rec, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	on := filepath.Join(dir, "on.json")
	if _, errOut, code := arena(t, "match", "--game", "dots-and-boxes", "--from", path, "--turn", "10",
		"--bot", "builtin:chains", "--bot", "builtin:greedy", "--replay", on); code != 0 {
		t.Fatalf("match --from: exit %d: %s", code, errOut)
	}
	r, err := replay.Load(on)
	if err != nil {
		t.Fatal(err)
	}
	if r.ResumedAfter != 10 || r.Seed != rec.Seed || len(r.Turns) != 60 {
		t.Fatalf("resumed after %d, seed %d, %d turns", r.ResumedAfter, r.Seed, len(r.Turns))
	}
	for i := 0; i < 10; i++ {
		if r.Turns[i].Hash != rec.Turns[i].Hash {
			t.Fatalf("turn %d differs from the recorded match", i+1)
		}
	}
	if r.Turns[10].Seats[0].Answer == rec.Turns[10].Seats[0].Answer {
		t.Fatal("turn 11 was not played by the new bots")
	}
	if n := r.Result.Statuses[0]["ok"] + r.Result.Statuses[0]["ignored"]; n != 50 {
		t.Fatalf("seat 0 counts %v, want the 50 turns it played", r.Result.Statuses[0])
	}
	for _, cmd := range [][]string{{"replay", "verify", on}, {"replay", "rerun", on}} {
		if out, errOut, code := arena(t, cmd...); code != 0 {
			t.Fatalf("%v: exit %d: %s %s", cmd, code, out, errOut)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--game", "lines-and-boxes", "--from", path, "--turn", "3"}, "is a replay of dots-and-boxes"},
		{[]string{"--game", "dots-and-boxes", "--from", path, "--turn", "60"}, "after turns 0 to 59"},
		{[]string{"--game", "dots-and-boxes", "--from", path, "--turn", "3", "--param", "x=1"}, "parameter"},
	} {
		args := append([]string{"match", "--bot", "builtin:greedy", "--bot", "builtin:greedy"}, tc.args...)
		if _, errOut, code := arena(t, args...); code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
		}
	}
}

// TestRerunOfRawBytes: a real program whose answers are invalid UTF-8, cut
// inside a character, and over 4 KiB re-runs clean, and verify recomputes
// their statuses.
func TestRerunOfRawBytes(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "raw.sh")
	body := "#!/bin/sh\nn=0\nwhile read line; do\n n=$((n+1))\n" +
		" case $((n % 3)) in\n" +
		"  0) printf '\\377\\376{\\n' ;;\n" +
		"  1) printf '{\"orient\":\"H\",\"r\":0,\"c\":\"\\303\\n' ;;\n" +
		"  2) printf '{\"orient\":\"V\",\"r\":0,\"c\":0}%6000s\\303\\n' ' ' ;;\n" +
		" esac\ndone\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "r.json")
	if _, errOut, code := arena(t, "match", "--game", "dots-and-boxes", "--seed", "5",
		"--bot", "exec:"+script, "--bot", "builtin:greedy", "--replay", path); code != 0 {
		t.Fatalf("match: exit %d: %s", code, errOut)
	}
	r, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b64, long := 0, 0
	for _, turn := range r.Turns {
		s := turn.Seats[0]
		if s.AnswerBase64 != "" {
			b64++
		}
		if b, whole, _ := s.AnswerBytes(); whole && len(b) > 6000 {
			long++
		}
	}
	if b64 < 30 || long < 15 {
		t.Fatalf("%d answers in base64, %d long ones kept whole", b64, long)
	}
	for _, cmd := range [][]string{{"replay", "verify", path}, {"replay", "rerun", "--allow-native", path}} {
		if out, errOut, code := arena(t, cmd...); code != 0 || !strings.Contains(out, "ok") {
			t.Fatalf("%v: exit %d: %s %s", cmd, code, out, errOut)
		}
	}
}

// TestHostileReplayFileIsEscaped: a replay file is an upload like any other;
// what show and verify print of it reaches the terminal escaped.
func TestHostileReplayFileIsEscaped(t *testing.T) {
	_, path := recordLoggingMatch(t)
	data, _ := os.ReadFile(path)
	bad := strings.Replace(string(data), `"status":"illegal"`, `"status":"\u001b]0;pwned\u0007"`, 1)
	if bad == string(data) {
		t.Fatal("no illegal answer to edit")
	}
	os.WriteFile(path, []byte(bad), 0o644)
	out, errOut, code := arena(t, "replay", "show", path, "--turn", "3")
	if strings.ContainsAny(out+errOut, "\x1b\x07") {
		t.Fatalf("show (exit %d) let a control character through:\n%q\n%q", code, out, errOut)
	}
	_, errOut, code = arena(t, "replay", "verify", path)
	if code != 1 || strings.ContainsAny(errOut, "\x1b\x07") || !strings.Contains(errOut, `\x1b]0;pwned`) {
		t.Fatalf("verify: exit %d: %q", code, errOut)
	}
}

// TestVerifySaysWhatItDidNotCheck: a pass lists what verify could not
// recompute; a version 1 replay is refused with the reason, and show still
// draws it, saying it is unchecked.
func TestVerifySaysWhatItDidNotCheck(t *testing.T) {
	_, path := recordLoggingMatch(t)
	out, errOut, code := arena(t, "replay", "verify", path)
	if code != 0 || !strings.Contains(out, "not checked by verify") || !strings.Contains(out, "fuel figures: not recomputed") {
		t.Fatalf("verify: exit %d: %q %q", code, out, errOut)
	}
	v1 := "../../replay/testdata/v1-dots-and-boxes.replay.json"
	out, errOut, code = arena(t, "replay", "verify", v1)
	if code != 1 || !strings.Contains(errOut, "version 1 replay: it predates exact answers") {
		t.Fatalf("verify of version 1: exit %d: %q %q", code, out, errOut)
	}
	out, errOut, code = arena(t, "replay", "show", v1)
	if code != 0 || !strings.Contains(out, "version 1 replay: drawn from its recorded actions") {
		t.Fatalf("show of version 1: exit %d: %q %q", code, out, errOut)
	}
}

// TestRerunFindsHouseModules: a replay of a match against a house ladder
// module (as a server records it: by hash) re-runs without the module's
// file, from the modules the binary embeds, written to the user's cache.
func TestRerunFindsHouseModules(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	bots, err := housebots.Ladder()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := filepath.Join(dir, "random.wasm")
	if err := os.WriteFile(mod, bots[0].Wasm, 0o644); err != nil { // dots-and-boxes random
		t.Fatal(err)
	}
	path := filepath.Join(dir, "r.json")
	if _, errOut, code := arena(t, "match", "--game", bots[0].Game, "--seed", "3", "--bot", "wasm:"+mod, "--bot", "builtin:greedy", "--replay", path); code != 0 {
		t.Fatalf("match: exit %d: %s", code, errOut)
	}
	os.Remove(mod)
	if out, errOut, code := arena(t, "replay", "rerun", path); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("rerun without the module's file: exit %d: %s %s", code, out, errOut)
	}
}
