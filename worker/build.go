package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"sync"

	"github.com/arenabots/arena/bot/spec"
	gamepkg "github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/sandbox/meter"
)

// builds caches BuildFor: the fingerprint costs one match per game.
var builds sync.Map // game id -> buildResult

type buildResult struct {
	b   jobs.Build
	err error
}

var buildMu sync.Mutex

// BuildFor is this binary's build for a game: the sandbox's cost model and a
// fingerprint of the game's rules, the sha256 of the replay of a fixed match
// between the game's first house bot in every seat, and of the game's fuel
// policy. Games have no rules
// version number of their own; any change to the rules (or to that house
// bot) changes the replay and so the fingerprint, and a worker built from
// different rules then refuses the game's jobs.
func BuildFor(game string) (jobs.Build, error) {
	if r, ok := builds.Load(game); ok {
		return r.(buildResult).b, r.(buildResult).err
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if r, ok := builds.Load(game); ok {
		return r.(buildResult).b, r.(buildResult).err
	}
	b, err := fingerprint(game)
	builds.Store(game, buildResult{b, err})
	return b, err
}

func fingerprint(game string) (jobs.Build, error) {
	g, err := games.Lookup(game)
	if err != nil {
		return jobs.Build{}, err
	}
	hbs := g.HouseBots()
	if len(hbs) == 0 {
		return jobs.Build{}, fmt.Errorf("worker: %s has no house bot to fingerprint its rules", game)
	}
	specs := make([]spec.Spec, g.Info().Players[0])
	for i := range specs {
		specs[i] = spec.Spec{Kind: spec.Builtin, Name: hbs[0].Name}
	}
	rep, err := match.Runner{}.Play(context.Background(), g, gamepkg.Config{Seed: 1, Players: len(specs)}, spec.Seats(specs, Modules{}))
	if err != nil {
		return jobs.Build{}, fmt.Errorf("worker: fingerprint of %s: %w", game, err)
	}
	rep.Logs = nil
	data, err := rep.Marshal()
	if err != nil {
		return jobs.Build{}, err
	}
	// The fuel policy is part of the rules for wasm bots, and a house bot's
	// replay does not show it.
	data = fmt.Appendf(data, "\nfuel %+v", g.Info().Fuel)
	sum := sha256.Sum256(data)
	return jobs.Build{CostModel: meter.CostModel, Rules: hex.EncodeToString(sum[:8]), Arch: runtime.GOARCH}, nil
}

// checkBuild refuses a job whose build differs from this worker's.
func checkBuild(j jobs.Job) error {
	if j.Build == nil {
		return nil
	}
	mine, err := BuildFor(j.Game)
	if err != nil {
		return err
	}
	want := *j.Build
	if want.Arch == "" { // queued by a server that did not name it
		want.Arch = mine.Arch
	}
	if want != mine {
		return fmt.Errorf("build mismatch: the job needs cost model %d, rules %s and processor %s; this worker has cost model %d, rules %s and processor %s",
			want.CostModel, want.Rules, want.Arch, mine.CostModel, mine.Rules, mine.Arch)
	}
	return nil
}
