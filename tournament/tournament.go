// Package tournament runs round robins for any game, in the format of the
// 2006 LINES and BOXES contest: every group of entries meets on the same
// starting positions in every seat order, match points decide, total score
// breaks ties, and an optional finals round sends the top entries to more
// boards. The result depends only on the configuration, never on how many
// matches ran at once.
package tournament

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
	"github.com/arenabots/arena/replay"
)

// A Runner plays the tournament's games. The command line gives one that
// opens bots from their SPECs; the server, one for its stored bots.
type Runner interface {
	// Check opens the bot named by spec for g and closes it, so that a bad
	// entry fails before the first game rather than after many.
	Check(ctx context.Context, g game.Game, s spec.Spec) error
	// Play plays one game between the bots named by specs, in seat order,
	// and returns its replay.
	Play(ctx context.Context, g game.Game, seed uint64, params game.Params, specs []spec.Spec) (*replay.Replay, error)
}

// Config describes a tournament.
type Config struct {
	Game   game.Game
	Runner Runner
	Bots   []spec.Spec // the entries
	Seed   uint64
	Params game.Params
	// Players is the number of seats per game: 0 means 2 when the game
	// allows it, else its smallest count.
	Players int
	// Boards is the number of starting positions each group meets on in
	// the first round (default 4). Every group plays every board in every
	// seat rotation.
	Boards int
	// Finals, when above 1, sends the top Finals entries of the first round
	// to a finals round on FinalBoards further boards (default 2*Boards),
	// whose points alone decide their order, as in the contest.
	Finals      int
	FinalBoards int
	// Parallel is how many matches run at once (default: every core).
	Parallel int
	// Progress, when set, is called after every finished game.
	Progress func(done, total int)
	// OnGame, when set, is called once per finished game, one call at a
	// time, in the order the games finish (which depends on Parallel; the
	// records themselves do not). An error stops the tournament.
	OnGame func(g GameRecord, r *replay.Replay) error
}

// GameRecord is one finished game.
type GameRecord struct {
	Round     int                   `json:"round"` // 1, or 2 for the finals
	Index     int                   `json:"index"` // in the round's schedule, from 1
	Seed      uint64                `json:"seed"`
	Bots      []string              `json:"bots"` // SPECs, in seat order
	Turns     int                   `json:"turns"`
	Scores    []int64               `json:"scores"`
	Placement []int                 `json:"placement"`
	Statuses  []map[game.Status]int `json:"statuses"`
}

// Standing is one entry's record in a round.
type Standing struct {
	Bot    string `json:"bot"`
	Points int    `json:"points"`
	Score  int64  `json:"score"` // total boxes or bank: the tie-break
	Games  int    `json:"games"`
	Firsts int    `json:"firsts"` // games it placed first in, alone
}

// Result is a finished tournament.
type Result struct {
	Game    string      `json:"game"`
	Seed    uint64      `json:"seed"`
	Params  game.Params `json:"params"`
	Players int         `json:"players"`
	Boards  int         `json:"boards"`
	// Standings is the final order, best first: the finalists in their
	// finals order, then everyone else in first-round order.
	Standings []Standing `json:"standings"`
	RoundOne  []Standing `json:"round_one"`
	Finals    []Standing `json:"finals,omitempty"`
	// Games lists every game played, round by round in schedule order.
	Games []GameRecord `json:"games"`
}

// Run plays the tournament.
//
// Before the first game it checks the whole configuration: every parameter
// on every board, every entry through the Runner; so a mistake costs no
// games. An error from a game ends the tournament.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	entries := make([]int, len(cfg.Bots))
	for i := range entries {
		entries[i] = i
	}
	one := schedule(cfg, entries, cfg.Boards, 0)
	total := len(one)
	if cfg.Finals > 1 {
		total += countGames(cfg.Finals, cfg.Players, cfg.FinalBoards)
	}
	if err := cfg.check(ctx); err != nil {
		return nil, err
	}
	prog := &progress{report: cfg.Progress, onGame: cfg.OnGame, total: total}
	if err := play(ctx, cfg, one, prog); err != nil {
		return nil, err
	}
	res := &Result{Game: cfg.Game.Info().ID, Seed: cfg.Seed, Params: cfg.Params, Players: cfg.Players, Boards: cfg.Boards}
	res.RoundOne = standings(cfg, entries, one)
	res.Games = records(cfg, one)
	res.Standings = res.RoundOne
	if cfg.Finals > 1 {
		finalists := make([]int, cfg.Finals)
		for i := range finalists {
			finalists[i] = indexOf(cfg.Bots, res.RoundOne[i].Bot)
		}
		sort.Ints(finalists)
		final := schedule(cfg, finalists, cfg.FinalBoards, 1)
		if err := play(ctx, cfg, final, prog); err != nil {
			return nil, err
		}
		res.Finals = standings(cfg, finalists, final)
		res.Games = append(res.Games, records(cfg, final)...)
		res.Standings = append(append([]Standing(nil), res.Finals...), res.RoundOne[cfg.Finals:]...)
	}
	return res, nil
}

// UsageError is a configuration the tournament cannot run as given.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usage(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// defaults fills in the defaults and refuses what is out of range.
func (cfg *Config) defaults() error {
	if cfg.Runner == nil {
		return errors.New("tournament: no Runner")
	}
	info := cfg.Game.Info()
	if cfg.Players == 0 {
		cfg.Players = info.Players[0]
		if info.AllowsPlayers(2) {
			cfg.Players = 2
		}
	}
	if !info.AllowsPlayers(cfg.Players) {
		return usage("%s is for %s players, not %d", info.ID, info.PlayerCounts(), cfg.Players)
	}
	if len(cfg.Bots) < cfg.Players {
		return usage("a tournament of %d-player games needs at least %d bots, got %d", cfg.Players, cfg.Players, len(cfg.Bots))
	}
	seen := map[spec.Spec]bool{}
	for _, b := range cfg.Bots {
		if seen[b] {
			return usage("bot %s is entered twice", b)
		}
		seen[b] = true
	}
	// The game's varied settings, under the user's own.
	params := game.Params{}
	for k, v := range info.Varied {
		params[k] = v
	}
	for k, v := range cfg.Params {
		params[k] = v
	}
	cfg.Params = params
	switch {
	case cfg.Boards == 0:
		cfg.Boards = 4
	case cfg.Boards < 0:
		return usage("boards %d: want 1 or more", cfg.Boards)
	}
	switch {
	case cfg.FinalBoards == 0:
		cfg.FinalBoards = 2 * cfg.Boards
	case cfg.FinalBoards < 0:
		return usage("final boards %d: want 1 or more", cfg.FinalBoards)
	}
	switch {
	case cfg.Finals < 0 || cfg.Finals == 1:
		return usage("finals %d: want 0 (no finals) or from %d to the %d entries", cfg.Finals, max(2, cfg.Players), len(cfg.Bots))
	case cfg.Finals > len(cfg.Bots):
		return usage("finals %d: there are only %d entries", cfg.Finals, len(cfg.Bots))
	case cfg.Finals > 1 && cfg.Finals < cfg.Players:
		return usage("a finals round of %d-player games needs at least %d finalists", cfg.Players, cfg.Players)
	}
	switch {
	case cfg.Parallel == 0:
		cfg.Parallel = runtime.GOMAXPROCS(0)
	case cfg.Parallel < 0:
		return usage("parallel %d: want 1 or more", cfg.Parallel)
	}
	return nil
}

// check starts the game on every board of both rounds (the varied settings
// draw a different board from each seed, and one may be impossible) and
// checks every entry.
func (cfg *Config) check(ctx context.Context) error {
	rounds := []int{cfg.Boards}
	if cfg.Finals > 1 {
		rounds = append(rounds, cfg.FinalBoards)
	}
	for round, boards := range rounds {
		for b := 0; b < boards; b++ {
			seed := rng.Mix(cfg.Seed, uint64(round), uint64(b))
			if _, err := cfg.Game.New(game.Config{Seed: seed, Players: cfg.Players, Params: cfg.Params}); err != nil {
				return &UsageError{Msg: fmt.Sprintf("round %d, board %d (seed %d): %v", round+1, b+1, seed, err)}
			}
		}
	}
	for _, b := range cfg.Bots {
		if err := cfg.Runner.Check(ctx, cfg.Game, b); err != nil {
			return err
		}
	}
	return nil
}

// job is one game: a group of entries in seat order on one board.
type job struct {
	round  int
	index  int   // from 1, in the round's schedule
	seats  []int // entry index per seat
	seed   uint64
	result replay.Result
}

// schedule lists a round's games in a fixed order: every group of entries
// (combinations, in index order), every board, every seat rotation. All
// groups meet on the same boards: board b's seed is the same for all.
func schedule(cfg Config, entries []int, boards int, round uint64) []job {
	var jobs []job
	for _, group := range combinations(entries, cfg.Players) {
		for b := 0; b < boards; b++ {
			seed := rng.Mix(cfg.Seed, round, uint64(b))
			for rot := 0; rot < len(group); rot++ {
				seats := make([]int, len(group))
				for i := range group {
					seats[i] = group[(i+rot)%len(group)]
				}
				jobs = append(jobs, job{round: int(round) + 1, index: len(jobs) + 1, seats: seats, seed: seed})
			}
		}
	}
	return jobs
}

func countGames(entries, players, boards int) int {
	n := 1
	for i := 0; i < players; i++ {
		n = n * (entries - i) / (i + 1)
	}
	return n * boards * players
}

func combinations(items []int, k int) [][]int {
	var out [][]int
	var rec func(start int, cur []int)
	rec = func(start int, cur []int) {
		if len(cur) == k {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for i := start; i < len(items); i++ {
			rec(i+1, append(cur, items[i]))
		}
	}
	rec(0, nil)
	return out
}

type progress struct {
	mu     sync.Mutex
	done   int
	total  int
	report func(done, total int)
	onGame func(GameRecord, *replay.Replay) error
}

// finished reports one finished game, one at a time.
func (p *progress) finished(g GameRecord, r *replay.Replay) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if p.onGame != nil {
		if err := p.onGame(g, r); err != nil {
			return err
		}
	}
	if p.report != nil {
		p.report(p.done, p.total)
	}
	return nil
}

// records lists a round's games.
func records(cfg Config, jobs []job) []GameRecord {
	out := make([]GameRecord, len(jobs))
	for i, j := range jobs {
		out[i] = record(cfg, j)
	}
	return out
}

func record(cfg Config, j job) GameRecord {
	return GameRecord{
		Round: j.round, Index: j.index, Seed: j.seed, Bots: texts(specsOf(cfg, j)),
		Turns: j.result.Turns, Scores: j.result.Scores, Placement: j.result.Placement, Statuses: j.result.Statuses,
	}
}

// texts are specs' text forms, as the records show them.
func texts(specs []spec.Spec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.String()
	}
	return out
}

func specsOf(cfg Config, j job) []spec.Spec {
	specs := make([]spec.Spec, len(j.seats))
	for s, e := range j.seats {
		specs[s] = cfg.Bots[e]
	}
	return specs
}

// play runs the jobs on cfg.Parallel workers. Each job writes only its own
// result, so the outcome does not depend on the order they finish in.
func play(ctx context.Context, cfg Config, jobs []job, prog *progress) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < cfg.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := &jobs[i]
				specs := specsOf(cfg, *j)
				r, err := cfg.Runner.Play(ctx, cfg.Game, j.seed, cfg.Params, specs)
				if err == nil {
					j.result = r.Result
					err = prog.finished(record(cfg, *j), r)
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("round %d, game %d (%s, seed %d): %w", j.round, j.index, strings.Join(texts(specs), " vs "), j.seed, err)
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// standings scores a round: for every pair of seats in a game, 2 points to
// the one placed ahead, or 1 each when the game has ties and their scores
// are equal. With two players that is the contest's 2/1/0 per game.
func standings(cfg Config, entries []int, jobs []job) []Standing {
	rows := make([]Standing, len(cfg.Bots))
	for i := range rows {
		rows[i].Bot = cfg.Bots[i].String()
	}
	ties := cfg.Game.Info().Ties
	for _, j := range jobs {
		res := j.result
		place := make([]int, len(res.Placement))
		for p, seat := range res.Placement {
			place[seat] = p
		}
		for seat, e := range j.seats {
			rows[e].Games++
			rows[e].Score += res.Scores[seat]
			tiedAtTop := false
			for other := range j.seats {
				if other == seat {
					continue
				}
				switch {
				case ties && res.Scores[seat] == res.Scores[other]:
					rows[e].Points++
					if place[seat] == 0 {
						tiedAtTop = true
					}
				case place[seat] < place[other]:
					rows[e].Points += 2
				}
			}
			if place[seat] == 0 && !tiedAtTop {
				rows[e].Firsts++
			}
		}
	}
	out := make([]Standing, 0, len(entries))
	for _, e := range entries {
		out = append(out, rows[e])
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Points != out[b].Points {
			return out[a].Points > out[b].Points
		}
		return out[a].Score > out[b].Score
	})
	return out
}

func indexOf(list []spec.Spec, s string) int {
	for i, x := range list {
		if x.String() == s {
			return i
		}
	}
	return -1
}
