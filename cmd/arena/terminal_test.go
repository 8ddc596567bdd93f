package main

import (
	"os/exec"
	"strings"
	"testing"
)

// onTerminal runs the command with a terminal for stdin, stdout and stderr
// (util-linux's script, part of every Debian) and returns what it drew.
func onTerminal(t *testing.T, args ...string) string {
	t.Helper()
	line := arenaBin
	for _, a := range args {
		line += " '" + a + "'"
	}
	out, err := exec.Command("script", "-q", "-e", "-c", line, "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return string(out)
}

// TestOnATerminal checks what only a terminal gets: --watch redraws in place
// (cursor codes) and colours the board; a tournament shows a progress line.
func TestOnATerminal(t *testing.T) {
	out := onTerminal(t, "match", "--game", "dots-and-boxes", "--bot", "builtin:random", "--bot", "builtin:greedy", "--watch", "1ns")
	if n := strings.Count(out, "\x1b[H\x1b[2J"); n != 60 {
		t.Errorf("the board was redrawn in place %d times, want 60", n)
	}
	if n := strings.Count(out, "60 of 60 edges drawn"); n != 1 {
		t.Errorf("the final board drawn %d times", n)
	}
	if !strings.Contains(out, "\x1b[0m") {
		t.Error("the board is not coloured on a terminal")
	}
	out = onTerminal(t, "tournament", "--game", "dots-and-boxes", "--bot", "builtin:random", "--bot", "builtin:greedy", "--boards", "1")
	if !strings.Contains(out, "tournament: 2 of 2 games") || !strings.Contains(out, "builtin:greedy") {
		t.Errorf("no progress line:\n%q", out)
	}
}
