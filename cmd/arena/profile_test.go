package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/sandbox"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// goKit builds the Go starter kit of Dots and Boxes.
func goKit(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Go wasm module")
	}
	return wasmtest.GoBuild(t, "../../games/dotsandboxes/kits/go/dots-and-boxes", "")
}

// A profiled match is the plain match, byte for byte, and the profile says
// where the fuel went by function, host call and answer.
func TestMatchProfileChangesNoReplay(t *testing.T) {
	kit := goKit(t)
	dir := t.TempDir()
	plain, profiled, pprofFile := filepath.Join(dir, "plain.json"), filepath.Join(dir, "profiled.json"), filepath.Join(dir, "fuel.pprof")
	common := []string{"match", "--game", "dots-and-boxes", "--seed", "3", "--bot", "wasm:" + kit, "--bot", "builtin:random"}
	if _, errOut, code := arena(t, append(common, "--replay", plain)...); code != 0 {
		t.Fatalf("plain match: exit %d: %s", code, errOut)
	}
	out, errOut, code := arena(t, append(common, "--replay", profiled, "--profile", "0", "--profile-out", pprofFile, "--profile-top", "5")...)
	if code != 0 {
		t.Fatalf("profiled match: exit %d: %s", code, errOut)
	}
	a, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(profiled)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("the profiled match's replay differs from the plain one's:\n%s\n----\n%s", a, b)
	}
	for _, want := range []string{"seat 0, wasm:", "start-up:", "answers:", "runtime.", "fd_write", "answer 1:", "profile written to"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the profile:\n%s", want, out)
		}
	}
	f, err := os.Open(pprofFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the pprof file is not gzipped: %v", err)
	}
	pb, err := io.ReadAll(zr)
	if err != nil || !bytes.Contains(pb, []byte("choose")) || !bytes.Contains(pb, []byte("answers")) {
		t.Fatalf("the pprof file has no choose or answers (%v)", err)
	}
	// go tool pprof reads it.
	top, err := exec.Command("go", "tool", "pprof", "-top", pprofFile).CombinedOutput()
	if err != nil || !strings.Contains(string(top), "Type: answers") || !strings.Contains(string(top), "runtime.") {
		t.Errorf("go tool pprof: %v\n%s", err, top)
	}
	if _, _, code := arena(t, "match", "--game", "dots-and-boxes", "--bot", "builtin:random", "--bot", "builtin:random", "--profile", "1"); code == 0 {
		t.Error("--profile of a builtin bot was accepted")
	}
}

// The profile accounts for every unit of fuel the replay records, answer by
// answer.
func TestProfileSumsToReplayFuel(t *testing.T) {
	kit := goKit(t)
	t.Setenv("ARENA_WASM_CACHE", t.TempDir())
	g, err := lookupGame("dots-and-boxes")
	if err != nil {
		t.Fatal(err)
	}
	prof := sandbox.NewProfile()
	specs := []string{"builtin:random", "wasm:" + kit}
	r, _, err := playOpener(context.Background(), match.Runner{}, g, 5, nil, 2, spec.ProfiledOpener(specs, 1, prof))
	if err != nil {
		t.Fatal(err)
	}
	var fuel []int64
	for _, turn := range r.Turns {
		for _, s := range turn.Seats {
			if s.Seat == 1 {
				fuel = append(fuel, s.Fuel)
			}
		}
	}
	sum := prof.Summary()
	if len(sum.PerAnswer) != len(fuel) {
		t.Fatalf("profile of %d answers, replay of %d", len(sum.PerAnswer), len(fuel))
	}
	for i, es := range sum.PerAnswer {
		var n int64
		for _, e := range es {
			n += e.Self
		}
		if n != fuel[i] {
			t.Errorf("answer %d: profile %d fuel, replay %d", i+1, n, fuel[i])
		}
	}
	if sum.Instances != 1 || sum.StartupFuel < 1_000_000 || len(sum.Answers) == 0 || len(sum.Startup) == 0 {
		t.Errorf("summary %d instances, start-up %d, %d answer entries", sum.Instances, sum.StartupFuel, len(sum.Answers))
	}
}

// arena check --profile prints the profile of the smoke matches after the
// report.
func TestCheckProfile(t *testing.T) {
	kit := goKit(t)
	out, errOut, code := arena(t, "check", "--game", "dots-and-boxes", kit, "--profile", "--profile-top", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"PASS", "smoke matches of", "2 instance(s), 120 answer(s)", "start-up:", "answers:", "answer 120:"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}
