// Package local opens a bot of any kind on this machine: a game's house
// bot, a native program (exec:), a 2006 contest entry (potm:), a wasm module
// by its path, a house ladder module, a Battlesnake server. It is the
// command line's opener, and the one package that links every kind of bot;
// a worker has its own, which cannot start a native program.
package local

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/battlesnakebot"
	"github.com/arenabots/arena/bot/execbot"
	"github.com/arenabots/arena/bot/potmbot"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/bot/wasmbot"
	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/sandbox"
)

// Opener opens every kind of bot but a human (spec.Opener). When Profile
// is set, the wasm bot of seat ProfileSeat records in it where it spends
// its fuel (sandbox.Profile), which changes nothing else. ExecTimeout is
// an exec: bot's wall-clock limit per answer (0: execbot.DefaultTimeout).
type Opener struct {
	ProfileSeat int
	Profile     *sandbox.Profile
	ExecTimeout time.Duration
}

// Open opens the bot s names for one seat of m.
func (o Opener) Open(ctx context.Context, s spec.Spec, m bot.Match) (bot.Bot, error) {
	b, err := o.open(ctx, s, m)
	if err != nil {
		return nil, err // not a typed nil: a caller may test b
	}
	return b, nil
}

func (o Opener) open(ctx context.Context, s spec.Spec, m bot.Match) (bot.Bot, error) {
	switch s.Kind {
	case spec.Builtin:
		return bot.OpenBuiltin(s.Name, m)
	case spec.Exec:
		if o.ExecTimeout > 0 {
			return execbot.OpenWithTimeout(s.Command, o.ExecTimeout)
		}
		return execbot.Open(s.Command, m)
	case spec.Wasm:
		if s.Path == "" {
			return nil, errors.New("a module known by its sha256 only: give its file's path")
		}
		if o.Profile == nil || m.Seat != o.ProfileSeat {
			return wasmbot.Open(ctx, s.Path, m)
		}
		rt, err := sandbox.Default()
		if err != nil {
			return nil, err
		}
		return wasmbot.OpenProfiled(ctx, rt, s.Path, m, o.Profile)
	case spec.Potm:
		return potmbot.Open(s.Path, m)
	case spec.Battlesnake:
		return battlesnakebot.Open(s.URL, m)
	case spec.House:
		return openHouse(ctx, s.Name, m)
	case spec.Human:
		return nil, errors.New("a person's seat is played on the site, not from the command line")
	}
	return nil, fmt.Errorf("no bot of kind %s", s.Kind)
}

// Seats opens the seats' bots from specs, in seat order (spec.Seats).
func Seats(specs []spec.Spec) bot.Opener { return spec.Seats(specs, Opener{}) }

// openHouse opens the house's ladder entry name of the match's game: the
// very module arena serve seeds for @house, so anyone can train against the
// ladder's house offline.
func openHouse(ctx context.Context, name string, m bot.Match) (bot.Bot, error) {
	entry, err := housebots.Module(m.Game.Info().ID, name)
	if err != nil {
		return nil, err
	}
	path, err := housebots.CachedPath(entry)
	if err != nil {
		return nil, err
	}
	return wasmbot.Open(ctx, path, m)
}
