package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/sandbox/meter"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// A worker runs jobs from the queue, which anyone holding the worker's
// credentials can write to: it cannot start a native program because its
// package does not link the packages that start one, whatever a job says.
func TestWorkerStartsNoNativeProgram(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/arenabots/arena/bot/wasmbot") {
		t.Fatalf("go list -deps names no bot/wasmbot: the test reads the wrong list\n%s", out)
	}
	for _, pkg := range []string{"bot/execbot", "bot/potmbot", "bot/local", "bot/battlesnakebot"} {
		if slices.Contains(deps, "github.com/arenabots/arena/"+pkg) {
			t.Errorf("package worker links %s", pkg)
		}
	}
}

// The worker's opener opens a game's house bots and its job's modules by
// sha256, and refuses every other kind with the reason.
func TestWorkerOpenerRefusesOtherKinds(t *testing.T) {
	m := bot.Match{Game: dotsandboxes.Game{}}
	ms := Modules{}
	b, err := ms.Open(context.Background(), spec.Spec{Kind: spec.Builtin, Name: "greedy"}, m)
	if err != nil {
		t.Fatalf("builtin:greedy: %v", err)
	}
	b.Close()
	for _, c := range []struct {
		spec spec.Spec
		want string
	}{
		{spec.Spec{Kind: spec.Exec, Command: "/bin/sh -c true"}, "not exec bots"},
		{spec.Spec{Kind: spec.Potm, Path: "/bin/true"}, "not potm bots"},
		{spec.Spec{Kind: spec.Battlesnake, URL: "http://127.0.0.1:1"}, "not battlesnake bots"},
		{spec.Spec{Kind: spec.House, Name: "greedy"}, "not house bots"},
		{spec.Spec{Kind: spec.Wasm, Path: "/tmp/bot.wasm"}, "by sha256"},
		{spec.Spec{Kind: spec.Wasm, SHA256: strings.Repeat("0", 64)}, "by sha256"},
	} {
		if b, err := ms.Open(context.Background(), c.spec, m); err == nil || !strings.Contains(err.Error(), c.want) {
			if b != nil {
				b.Close()
			}
			t.Errorf("%s: %v, want an error saying %q", c.spec, err, c.want)
		}
	}
}

// A job's seat is a house bot's builtin spec or a module's sha256, never
// both, never another kind.
func TestSeatSpec(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	for _, c := range []struct {
		seat jobs.Seat
		want string // the spec's text, or the error's
	}{
		{jobs.Seat{Builtin: "builtin:greedy"}, "builtin:greedy"},
		{jobs.Seat{Wasm: sha}, "wasm:" + sha},
		{jobs.Seat{Builtin: "exec:/bin/sh"}, `seat 1: "exec:/bin/sh" is not a house bot (builtin:NAME)`},
		{jobs.Seat{Builtin: "greedy"}, `seat 1: bot "greedy": want KIND:ARG`},
		{jobs.Seat{Builtin: "builtin:greedy", Wasm: sha}, "seat 1 names no bot"},
		{jobs.Seat{}, "seat 1 names no bot"},
	} {
		s, err := seatSpec(1, c.seat)
		got := s.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.seat, got, c.want)
		}
	}
}

// A seat's module is named in the replay by its sha256, as the server
// expects it, not by the worker's cache path; a cache file with other
// bytes than its name says does not open.
func TestModuleSeatIsNamedByItsHash(t *testing.T) {
	if os.Getenv("ARENA_WASM_CACHE") == "" {
		t.Setenv("ARENA_WASM_CACHE", t.TempDir())
	}
	wasm := wasmtest.Echo{}.Module()
	sum := sha256.Sum256(wasm)
	sha := hex.EncodeToString(sum[:])
	path := wasmtest.Write(t, "echo", wasm)
	other := wasmtest.Write(t, "other", wasmtest.Echo{ExtraFuncs: 1}.Module())
	specs := []spec.Spec{{Kind: spec.Wasm, SHA256: sha}}
	m := bot.Match{Game: dotsandboxes.Game{}}
	b, id, err := spec.Seats(specs, Modules{sha: path})(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if want := (bot.Identity{Spec: "wasm:" + sha, SHA256: sha, CostModel: meter.CostModel}); id != want {
		t.Errorf("identity %+v, want %+v", id, want)
	}
	_, _, err = spec.Seats(specs, Modules{sha: other})(context.Background(), m)
	var changed *spec.MismatchError
	if !errors.As(err, &changed) {
		t.Errorf("a cache file with other bytes: %v, want a spec.MismatchError", err)
	}
}
