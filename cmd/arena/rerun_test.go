package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/internal/hashing"
	"github.com/arenabots/arena/replay"
)

// hostileReplay records a real match of game between two house bots, then
// rewrites seat 0 as a hostile replay's author would: any spec, any hash.
func hostileReplay(t *testing.T, game string, seat0 bot.Identity) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "r.json")
	if _, errOut, code := arena(t, "match", "--game", game, "--seed", "3",
		"--bot", "builtin:greedy", "--bot", "builtin:greedy", "--replay", path); code != 0 {
		t.Fatalf("match: exit %d: %s", code, errOut)
	}
	r, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r.Bots[0] = seat0
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// rerunWithin runs `arena replay rerun` with args and a deadline: a rerun
// that hangs fails the test instead of the test binary's timeout.
func rerunWithin(t *testing.T, limit time.Duration, args ...string) (stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, arenaBin, append([]string{"replay", "rerun"}, args...)...)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("rerun %v still ran after %v", args, limit)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return errBuf.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return errBuf.String(), 0
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	sum, err := hashing.FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func mustNotExist(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("%s: %s was written, so the program the replay names ran", what, path)
	}
}

// shellAttack is the command a hostile replay names: the system's shell
// writing marker, and the shell's real sha256.
func shellAttack(t *testing.T) (command, sha, marker string) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	marker = filepath.Join(t.TempDir(), "pwned")
	return "exec:" + sh + " -c id>" + marker, fileSHA256(t, sh), marker
}

// TestReplayRerunRefusesNative: a replay naming `exec:/bin/sh -c …` with
// /bin/sh's real hash starts nothing; rerun refuses with one line naming
// the seat and the flag. With --allow-native it runs, after saying so.
func TestReplayRerunRefusesNative(t *testing.T) {
	command, sha, marker := shellAttack(t)
	_, path := hostileReplay(t, "dots-and-boxes", bot.Identity{Spec: command, SHA256: sha})
	errOut, code := rerunWithin(t, time.Minute, path)
	mustNotExist(t, marker, "rerun without --allow-native")
	if code != 1 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 ||
		!strings.Contains(errOut, "seat 0") || !strings.Contains(errOut, "--allow-native") {
		t.Fatalf("rerun of an exec: seat: exit %d, want 1 and one line naming seat 0 and --allow-native: %q", code, errOut)
	}
	errOut, _ = rerunWithin(t, time.Minute, "--allow-native", path)
	if _, err := os.Stat(marker); err != nil || !strings.Contains(errOut, "seat 0 runs the native program") || !strings.Contains(errOut, marker) {
		t.Fatalf("--allow-native: marker %v, stderr %q", err, errOut)
	}
}

// TestReplayRerunRefusesSeatsWithoutHash: a seat with no sha256 cannot be
// told apart from any other program, so it is refused, even with
// --allow-native.
func TestReplayRerunRefusesSeatsWithoutHash(t *testing.T) {
	command, _, marker := shellAttack(t)
	_, path := hostileReplay(t, "dots-and-boxes", bot.Identity{Spec: command})
	for _, args := range [][]string{{path}, {"--allow-native", path}} {
		errOut, code := rerunWithin(t, time.Minute, args...)
		mustNotExist(t, marker, "rerun of a seat without a hash")
		if code != 1 || !strings.Contains(errOut, "seat 0") || !strings.Contains(errOut, "no valid sha256") {
			t.Fatalf("%v: exit %d: %q", args, code, errOut)
		}
	}
}

// TestReplayRerunOpensOnlyBoundedRegularFiles: a wasm seat naming
// /dev/zero (which hashes forever) or a directory is refused at once.
func TestReplayRerunOpensOnlyBoundedRegularFiles(t *testing.T) {
	anyHash := strings.Repeat("ab", 32)
	for _, p := range []string{"/dev/zero", t.TempDir()} {
		_, path := hostileReplay(t, "dots-and-boxes", bot.Identity{Spec: "wasm:" + p, SHA256: anyHash})
		start := time.Now()
		errOut, code := rerunWithin(t, 30*time.Second, path)
		if code != 1 || !strings.Contains(errOut, "seat 0") || !strings.Contains(errOut, "not a regular file") {
			t.Errorf("wasm:%s: exit %d after %v: %q", p, code, time.Since(start), errOut)
		}
	}
}

// TestReplayRerunRunsNothingBesideIt: a potm: seat whose path is missing is
// no longer looked for among the executables beside the replay unless
// --allow-native.
func TestReplayRerunRunsNothingBesideIt(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	entry := filepath.Join(dir, "entry.sh")
	if err := os.WriteFile(entry, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	replayDir, path := hostileReplay(t, "lines-and-boxes", bot.Identity{Spec: "potm:/nonexistent/entry", SHA256: fileSHA256(t, entry)})
	beside := filepath.Join(replayDir, "entry")
	data, _ := os.ReadFile(entry)
	if err := os.WriteFile(beside, data, 0o755); err != nil {
		t.Fatal(err)
	}
	errOut, code := rerunWithin(t, time.Minute, path)
	mustNotExist(t, marker, "rerun of a potm: seat")
	if code != 1 || !strings.Contains(errOut, "seat 0") || !strings.Contains(errOut, "--allow-native") {
		t.Fatalf("exit %d: %q", code, errOut)
	}
}

// TestReplayReadersStartNothing: every other command that reads a replay
// (verify, show, logs, match --from) leaves the hostile exec: seat alone;
// the site's viewer (arena view, /view) and package replay cannot start a
// bot at all: they do not link the packages that open one.
func TestReplayReadersStartNothing(t *testing.T) {
	command, sha, marker := shellAttack(t)
	dir, path := hostileReplay(t, "dots-and-boxes", bot.Identity{Spec: command, SHA256: sha})
	for _, args := range [][]string{
		{"replay", "verify", path},
		{"replay", "show", path},
		{"replay", "logs", path, "--seat", "0"},
		{"match", "--game", "dots-and-boxes", "--from", path, "--turn", "5", "--bot", "builtin:greedy", "--bot", "builtin:random", "--replay", filepath.Join(dir, "on.json")},
	} {
		arena(t, args...)
		mustNotExist(t, marker, strings.Join(args[:2], " "))
	}
	out, err := exec.Command("go", "list", "-deps", "../../internal/web", "../../replay").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range []string{"bot/local", "bot/execbot", "bot/potmbot", "bot/wasmbot"} {
		if strings.Contains(string(out), "/arena/"+pkg+"\n") {
			t.Errorf("the site or package replay links %s, which starts bots", pkg)
		}
	}
}
