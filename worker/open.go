package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/bot/wasmbot"
	"github.com/arenabots/arena/internal/jobs"
)

// seatSpec is the bot a job names for one seat: a house bot by its spec
// (builtin:NAME), or an uploaded module by its sha256.
func seatSpec(i int, s jobs.Seat) (spec.Spec, error) {
	switch {
	case s.Wasm != "" && s.Builtin == "":
		return spec.Spec{Kind: spec.Wasm, SHA256: s.Wasm}, nil
	case s.Builtin != "" && s.Wasm == "":
		sp, err := spec.Parse(s.Builtin)
		if err != nil {
			return spec.Spec{}, fmt.Errorf("seat %d: %w", i, err)
		}
		if sp.Kind != spec.Builtin {
			return spec.Spec{}, fmt.Errorf("seat %d: %q is not a house bot (builtin:NAME)", i, s.Builtin)
		}
		return sp, nil
	}
	return spec.Spec{}, fmt.Errorf("seat %d names no bot", i)
}

// Modules is a worker's opener: a game's house bots, and wasm modules by
// sha256 from the cache, the files paths gives. It opens nothing else (no
// module by a path of the job's choosing, no native program): the worker's
// binary does not even link the packages that start one
// (TestWorkerStartsNoNativeProgram).
type Modules map[string]string // sha256 -> its file in the cache

// Open opens the bot s names for one seat of m (spec.Opener).
func (ms Modules) Open(ctx context.Context, s spec.Spec, m bot.Match) (bot.Bot, error) {
	switch s.Kind {
	case spec.Builtin:
		return bot.OpenBuiltin(s.Name, m)
	case spec.Wasm:
		path, ok := ms[s.SHA256]
		if s.Path != "" || !ok {
			return nil, errors.New("a worker opens the modules of its job only, by sha256")
		}
		b, err := wasmbot.Open(ctx, path, m)
		if err != nil {
			return nil, err // not a typed nil
		}
		return b, nil
	}
	return nil, fmt.Errorf("a worker runs house bots and wasm modules only, not %s bots", s.Kind)
}
