package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/botcheck"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// lookupGame finds a game, or says which games there are.
func lookupGame(id string) (game.Game, error) {
	g, err := games.Lookup(id)
	if err != nil {
		return nil, usageError{err}
	}
	return g, nil
}

// parseParams turns --param flags (k=v, in order) into game parameters. A
// name given twice is an error, not a silent override; a value written @FILE
// is read from that file (a Lines and Boxes board as a contest input file).
func parseParams(flags []string) (game.Params, error) {
	return parseParamsWith(flags, readParamFile)
}

// maxParamFile bounds a parameter read from a file: a contest input file is
// a few hundred bytes, and @/dev/zero must not hang the command.
const maxParamFile = 1 << 20

func readParamFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxParamFile+1))
	if err == nil && len(data) > maxParamFile {
		err = fmt.Errorf("%s: longer than %d bytes", path, maxParamFile)
	}
	return data, err
}

// parseParamsWith is parseParams reading files with readFile.
func parseParamsWith(flags []string, readFile func(string) ([]byte, error)) (game.Params, error) {
	params := game.Params{}
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return nil, usagef("--param %q: want NAME=VALUE", f)
		}
		if _, dup := params[k]; dup {
			return nil, usagef("--param %s is given twice", k)
		}
		if path, ok := strings.CutPrefix(v, "@"); ok {
			data, err := readFile(path)
			if err != nil {
				return nil, missingIsUsage(fmt.Errorf("parameter %s: %w", k, err))
			}
			v = string(data)
		}
		params[k] = v
	}
	return params, nil
}

// checkPlayers says how many --bot flags the game wants.
func checkPlayers(g game.Game, n int) error {
	info := g.Info()
	if info.AllowsPlayers(n) {
		return nil
	}
	return usagef("%s is for %s players, not %d: give one --bot per seat", info.ID, info.PlayerCounts(), n)
}

// checkParams starts the game once with the parameters, so that an unknown
// name or a value out of its documented range fails before any bot runs.
func checkParams(g game.Game, seed uint64, players int, params game.Params) error {
	if _, err := g.New(game.Config{Seed: seed, Players: players, Params: params}); err != nil {
		return usageError{err}
	}
	return nil
}

// checkBot opens the bot named by s for one seat of g and closes it again:
// the house bot exists, the program is found, the wasm module passes the
// sandbox's checks (it is compiled once and cached). A refused module is
// the bot's failure (exit 1), everything else a command line to fix
// (exit 2).
func checkBot(ctx context.Context, g game.Game, seat int, s spec.Spec, params game.Params) error {
	b, err := local.Opener{}.Open(ctx, s, bot.Match{Game: g, Seat: seat, Params: params})
	if err == nil {
		b.Close()
		return nil
	}
	err = fmt.Errorf("bot %q: %w", s, err)
	if s.Kind == spec.Wasm && !errors.Is(err, fs.ErrNotExist) {
		if h := botcheck.Hint(err); h != "" {
			return hinted{err, h}
		}
		return err
	}
	return usageError{err}
}

// parseBots reads --bot flags: the edge where SPEC text becomes specs.
func parseBots(texts []string) ([]spec.Spec, error) {
	specs, err := spec.ParseAll(texts)
	if err != nil {
		return nil, usageError{err}
	}
	return specs, nil
}

// missingIsUsage makes a file named on the command line that does not exist
// a usage error; any other failure to read it stays a failure.
func missingIsUsage(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return usageError{err}
	}
	return err
}

// setup checks a whole match's command line before anything runs and
// returns its bots' specs.
func setup(ctx context.Context, g game.Game, seed uint64, params game.Params, texts []string) ([]spec.Spec, error) {
	if err := checkPlayers(g, len(texts)); err != nil {
		return nil, err
	}
	if err := checkParams(g, seed, len(texts), params); err != nil {
		return nil, err
	}
	specs, err := parseBots(texts)
	if err != nil {
		return nil, err
	}
	for seat, s := range specs {
		if err := checkBot(ctx, g, seat, s, params); err != nil {
			return nil, err
		}
	}
	return specs, nil
}

// playOpener plays one match between the bots open opens, in seat order,
// and returns its replay and each seat's kept stderr.
func playOpener(ctx context.Context, rn match.Runner, g game.Game, seed uint64, params game.Params, players int, open bot.Opener) (*replay.Replay, [][]byte, error) {
	r, err := rn.Play(ctx, g, game.Config{Seed: seed, Players: players, Params: params}, open)
	if err != nil {
		return nil, nil, err
	}
	logs := make([][]byte, len(r.Logs))
	for i, l := range r.Logs {
		if logs[i], err = l.Bytes(); err != nil {
			return nil, nil, err
		}
	}
	return r, logs, nil
}

// specRunner plays a tournament's games between bots named by SPECs, an
// exec: bot with execTimeout per answer.
type specRunner struct{ execTimeout time.Duration }

func (specRunner) Check(ctx context.Context, g game.Game, s spec.Spec) error {
	return checkBot(ctx, g, 0, s, nil)
}

func (sr specRunner) Play(ctx context.Context, g game.Game, seed uint64, params game.Params, specs []spec.Spec) (*replay.Replay, error) {
	open := spec.Seats(specs, local.Opener{ExecTimeout: sr.execTimeout})
	r, _, err := playOpener(ctx, match.Runner{}, g, seed, params, len(specs), open)
	return r, err
}
