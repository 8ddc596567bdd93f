// Package spec opens a bot from its command-line SPEC: builtin:NAME,
// exec:COMMAND, wasm:PATH, potm:PATH, battlesnake:URL or house:NAME. It is
// the one place that knows every kind of bot.
package spec

import (
	"context"
	"fmt"
	"strings"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/battlesnakebot"
	"github.com/arenabots/arena/bot/execbot"
	"github.com/arenabots/arena/bot/potmbot"
	"github.com/arenabots/arena/bot/wasmbot"
	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/sandbox"
	"github.com/arenabots/arena/sandbox/meter"
)

// Kinds lists the bot kinds the command line accepts.
var Kinds = []string{"builtin", "exec", "wasm", "potm", "battlesnake", "house"}

// Split parses "kind:rest".
func Split(spec string) (kind, arg string, err error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		err := fmt.Errorf("bot %q: want KIND:ARG with KIND one of %s", spec, strings.Join(Kinds, ", "))
		if !ok && spec != "" {
			guess := "builtin:" + spec
			if strings.HasSuffix(spec, ".wasm") {
				guess = "wasm:" + spec
			} else if strings.ContainsRune(spec, '/') {
				guess = "exec:" + spec
			}
			err = fmt.Errorf("%w (did you mean %s?)", err, guess)
		}
		return "", "", err
	}
	return kind, arg, nil
}

// Open opens the bot named by spec for one seat of one match.
func Open(ctx context.Context, spec string, m bot.Match) (bot.Bot, error) {
	return open(ctx, spec, m, nil)
}

// open is Open, profiling a wasm bot in prof when prof is set.
func open(ctx context.Context, spec string, m bot.Match, prof *sandbox.Profile) (bot.Bot, error) {
	kind, arg, err := Split(spec)
	if err != nil {
		return nil, err
	}
	var b bot.Bot
	switch kind {
	case "builtin":
		b, err = bot.OpenBuiltin(arg, m)
	case "exec":
		b, err = execbot.Open(arg, m)
	case "wasm":
		if prof == nil {
			b, err = wasmbot.Open(ctx, arg, m)
			break
		}
		var rt *sandbox.Runtime
		if rt, err = sandbox.Default(); err == nil {
			b, err = wasmbot.OpenProfiled(ctx, rt, arg, m, prof)
		}
	case "potm":
		b, err = potmbot.Open(arg, m)
	case "battlesnake":
		b, err = battlesnakebot.Open(arg, m)
	case "house":
		b, err = openHouse(ctx, arg, m)
	default:
		err = fmt.Errorf("unknown kind %q: want one of %s", kind, strings.Join(Kinds, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("bot %q: %w", spec, err)
	}
	return b, nil
}

// Opener opens seat i's bot from specs[i], naming it in the replay by its
// SPEC and, for a bot with a file, the file's sha256.
func Opener(specs []string) bot.Opener {
	return ProfiledOpener(specs, -1, nil)
}

// ProfiledOpener is Opener recording in prof where the wasm bot of seat
// profSeat spends its fuel (sandbox.Profile); it changes nothing else.
func ProfiledOpener(specs []string, profSeat int, prof *sandbox.Profile) bot.Opener {
	return func(ctx context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
		if m.Seat < 0 || m.Seat >= len(specs) {
			return nil, bot.Identity{}, fmt.Errorf("no bot given for seat %d", m.Seat)
		}
		var p *sandbox.Profile
		if m.Seat == profSeat {
			p = prof
		}
		b, err := open(ctx, specs[m.Seat], m, p)
		if err != nil {
			return nil, bot.Identity{}, err
		}
		id := bot.Identity{Spec: specs[m.Seat]}
		if withID, ok := b.(bot.Identifier); ok {
			id.SHA256 = withID.Identity().SHA256
		}
		if kind, _, _ := Split(specs[m.Seat]); kind == "wasm" || kind == "house" {
			id.CostModel = meter.CostModel
		}
		return b, id, nil
	}
}

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
