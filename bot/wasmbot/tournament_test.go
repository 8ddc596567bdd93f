package wasmbot_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox/wasmtest"
	"github.com/arenabots/arena/tournament"
)

// A tournament with one hostile entry takes about as long as one with a
// well-behaved entry in its place: the hostile module's work is bounded by
// its fuel, whatever it tries, so it costs at most a few full tanks a match
// and is retired. Each hostile entry does one kind of unpriced work of
// cost model 1 (issue: 400 s instead of 0.14 s).
func TestTournamentWithHostileEntry(t *testing.T) {
	if os.Getenv("ARENA_WASM_CACHE") == "" {
		// The tournament opens bots through sandbox.Default.
		t.Setenv("ARENA_WASM_CACHE", t.TempDir())
	}
	const fill = 0x20000
	hostile := map[string]wasmtest.Echo{
		"memory.fill": {MinPages: 64, Turn: wasmtest.Forever(wasmtest.I32(fill), wasmtest.I32(7), wasmtest.I32(1<<20), wasmtest.MemoryFill)},
		"stderr":      {Turn: wasmtest.Forever(wasmtest.I32(2), wasmtest.I32(0), wasmtest.I32(1), wasmtest.I32(0x11000), wasmtest.Call(wasmtest.FdWrite), wasmtest.Drop)},
		"table.grow":  {Table: true, Turn: wasmtest.Forever(wasmtest.RefNull, wasmtest.I32(100_000), wasmtest.TableGrow, wasmtest.Drop)},
	}
	others := spec.MustParseAll("builtin:random", "builtin:greedy", "builtin:chains")
	run := func(entry spec.Spec) time.Duration {
		t.Helper()
		start := time.Now()
		res, err := tournament.Run(context.Background(), tournament.Config{
			Game: dotsandboxes.Game{}, Runner: specRunner{}, Bots: append([]spec.Spec{entry}, others...), Seed: 3, Boards: 1, Parallel: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Standings) != 4 {
			t.Fatalf("standings %+v", res.Standings)
		}
		return time.Since(start)
	}
	good := spec.Spec{Kind: spec.Wasm, Path: dotsBotPath(t)}
	run(good) // compiles it
	base := run(good)
	for name, e := range hostile {
		path := spec.Spec{Kind: spec.Wasm, Path: wasmtest.Write(t, name, e.Module())}
		run(path) // compiles it
		took := run(path)
		t.Logf("%s: %v, against %v with the well-behaved entry", name, took, base)
		if took > 3*base+3*time.Second && !raceEnabled {
			t.Errorf("%s: the tournament took %v, against %v with a well-behaved entry", name, took, base)
		}
	}
}

// specRunner plays a tournament's games between bots named by SPECs.
type specRunner struct{}

func (specRunner) Check(ctx context.Context, g game.Game, s spec.Spec) error {
	b, err := local.Opener{}.Open(ctx, s, bot.Match{Game: g})
	if err != nil {
		return err
	}
	b.Close()
	return nil
}

func (specRunner) Play(ctx context.Context, g game.Game, seed uint64, params game.Params, specs []spec.Spec) (*replay.Replay, error) {
	return match.Runner{}.Play(ctx, g, game.Config{Seed: seed, Players: len(specs), Params: params}, local.Seats(specs))
}

// Matches with a hostile module of the sandbox's corpus write replays that a
// second run reproduces byte for byte, and no turn of the hostile seat is a
// timeout.
func TestHostileReplaysRerun(t *testing.T) {
	w := wasmtest.I32
	mods := map[string]wasmtest.Echo{
		"memory.fill": {MinPages: 64, Turn: wasmtest.Forever(w(0x20000), w(7), w(1<<20), wasmtest.MemoryFill)},
		"table.grow":  {Table: true, Turn: wasmtest.Forever(wasmtest.RefNull, w(100_000), wasmtest.TableGrow, wasmtest.Drop)},
		"recursion":   {TurnLocals: 1000, Turn: wasmtest.Call(wasmtest.TurnFunc)},
	}
	dots := dotsBotPath(t)
	for name, e := range mods {
		t.Run(name, func(t *testing.T) {
			path := wasmtest.Write(t, name, e.Module())
			first, err := playDots(t, 4, path, dots).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			second, err := playDots(t, 4, path, dots).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if string(first) != string(second) {
				t.Error("two runs wrote different replays")
			}
			r := playDots(t, 4, path, dots)
			for _, turn := range r.Turns {
				for _, s := range turn.Seats {
					if s.Seat == 0 && s.Status == game.Timeout {
						t.Fatalf("turn %d: timeout", turn.Turn)
					}
				}
			}
		})
	}
}
