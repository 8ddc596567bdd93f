// Package wasmbot plays a seat with a user's WebAssembly module (`wasm:PATH`),
// run in the metered sandbox of package sandbox under the restart-and-retire
// rule of bot.Supervised.
//
// Fuel follows the game's game.FuelPolicy. The usual policy is per turn: each
// instance starts with an empty tank, every observation adds PerTurn, and the
// tank is cut to Cap. A game with a chess clock (PerGame, Lines and Boxes)
// gets one tank of PerGame for the whole match instead: it is never refilled
// and survives restarts, so a bot that runs it dry plays only defaults after
// that, and every observation says
// {"left":L,"per_turn":0,"cap":PerGame,"per_answer":PerAnswer}: one answer
// may spend at most PerAnswer of it, so that it fits the backstop.
package wasmbot

import (
	"context"
	"strconv"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
	"github.com/arenabots/arena/sandbox"
	"github.com/arenabots/arena/sandbox/meter"
)

// Bot is a wasm bot for one seat of one match.
type Bot struct {
	*bot.Supervised
	id bot.Identity
}

// Identity names the module by its sha256, so a replay can find it again,
// and the fuel cost model its figures follow.
func (b *Bot) Identity() bot.Identity { return b.id }

// Open reads, checks and compiles the module at path (the process's shared
// sandbox.Default runtime caches the result) and returns the bot for seat
// m.Seat. A module the sandbox refuses fails here, with the reason. When ctx
// ends (a stopping worker) the compile ends with it: its child process is
// killed.
func Open(ctx context.Context, path string, m bot.Match) (bot.Bot, error) {
	rt, err := sandbox.Default()
	if err != nil {
		return nil, err
	}
	return OpenIn(ctx, rt, path, m)
}

// OpenIn is Open with a given runtime.
func OpenIn(ctx context.Context, rt *sandbox.Runtime, path string, m bot.Match) (*Bot, error) {
	return OpenProfiled(ctx, rt, path, m, nil)
}

// OpenProfiled is OpenIn recording where every instance's fuel goes in
// prof (nil: not profiled), which changes no answer and no fuel figure.
func OpenProfiled(ctx context.Context, rt *sandbox.Runtime, path string, m bot.Match, prof *sandbox.Profile) (*Bot, error) {
	mod, err := rt.CompileFile(ctx, path)
	if err != nil {
		return nil, err
	}
	log := &bot.Log{}
	return &Bot{
		Supervised: bot.NewSupervised(starter(rt, mod, m, log, prof), log),
		id:         bot.Identity{Spec: spec.Spec{Kind: spec.Wasm, Path: path}.String(), SHA256: mod.SHA256, CostModel: meter.CostModel},
	}, nil
}

// randomLabel separates the bots' random_get streams from the match's other
// uses of its seed.
const randomLabel = 0x7761736d // "wasm"

// fuelPolicy returns the fuel policy a game gives wasm bots: its own, or the
// protocol's default when it names none.
func fuelPolicy(g game.Game) game.FuelPolicy {
	if g == nil {
		return game.DefaultFuel
	}
	p := g.Info().Fuel
	if p == (game.FuelPolicy{}) {
		return game.DefaultFuel
	}
	return p
}

func starter(rt *sandbox.Runtime, mod *sandbox.Module, m bot.Match, log *bot.Log, prof *sandbox.Profile) bot.Starter {
	policy := fuelPolicy(m.Game)
	var shared *sandbox.Tank
	if policy.PerGame > 0 {
		shared = &sandbox.Tank{Left: policy.PerGame, Cap: policy.PerGame, Answer: policy.PerAnswer}
	}
	instances := 0
	return func(ctx context.Context) (bot.Process, error) {
		tank := shared
		if tank == nil {
			tank = &sandbox.Tank{PerTurn: policy.PerTurn, Cap: policy.Cap}
		}
		seed := rng.Mix(m.Seed, randomLabel, uint64(m.Seat), uint64(instances))
		instances++
		in, err := rt.Start(ctx, mod, sandbox.Config{Seed: seed, Tank: tank, Stderr: log, Profile: prof})
		if err != nil {
			return nil, err
		}
		return process{in}, nil
	}
}

// process adapts a sandbox instance to bot.Process, adding the fuel field.
type process struct{ in *sandbox.Instance }

func (p process) Ask(ctx context.Context, req bot.Request) bot.Reply {
	tank := p.in.Tank()
	perTurn, limit, answer := tank.PerTurn, tank.Cap, tank.Answer
	return p.in.Ask(ctx, func(left int64) []byte {
		return game.AddField(req.Observation, "fuel", fuelField(left, perTurn, limit, answer))
	})
}

func (p process) Stop() { p.in.Stop() }

// fuelField is the value of the "fuel" field added to every observation;
// "per_answer" only where an answer may spend less than the tank.
func fuelField(left, perTurn, limit, answer int64) []byte {
	b := []byte(`{"left":`)
	b = strconv.AppendInt(b, left, 10)
	b = append(b, `,"per_turn":`...)
	b = strconv.AppendInt(b, perTurn, 10)
	b = append(b, `,"cap":`...)
	b = strconv.AppendInt(b, limit, 10)
	if answer > 0 {
		b = append(b, `,"per_answer":`...)
		b = strconv.AppendInt(b, answer, 10)
	}
	return append(b, '}')
}
