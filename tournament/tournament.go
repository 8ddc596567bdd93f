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
	"sync"

	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// Config describes a tournament.
type Config struct {
	Game   game.Game
	Bots   []string // entries, as bot SPECs
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
}

// Run plays the tournament.
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
	prog := &progress{report: cfg.Progress, total: total}
	if err := play(ctx, cfg, one, prog); err != nil {
		return nil, err
	}
	res := &Result{Game: cfg.Game.Info().ID, Seed: cfg.Seed, Params: cfg.Params, Players: cfg.Players, Boards: cfg.Boards}
	res.RoundOne = standings(cfg, entries, one)
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
		res.Standings = append(append([]Standing(nil), res.Finals...), res.RoundOne[cfg.Finals:]...)
	}
	return res, nil
}

func (cfg *Config) defaults() error {
	info := cfg.Game.Info()
	if cfg.Players == 0 {
		cfg.Players = info.Players[0]
		if info.AllowsPlayers(2) {
			cfg.Players = 2
		}
	}
	if !info.AllowsPlayers(cfg.Players) {
		return fmt.Errorf("%s is for %v players, not %d", info.ID, info.Players, cfg.Players)
	}
	if len(cfg.Bots) < cfg.Players {
		return fmt.Errorf("a tournament of %d-player games needs at least %d bots, got %d", cfg.Players, cfg.Players, len(cfg.Bots))
	}
	seen := map[string]bool{}
	for _, b := range cfg.Bots {
		if seen[b] {
			return fmt.Errorf("bot %s is entered twice", b)
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
	if cfg.Boards <= 0 {
		cfg.Boards = 4
	}
	if cfg.FinalBoards <= 0 {
		cfg.FinalBoards = 2 * cfg.Boards
	}
	if cfg.Finals > len(cfg.Bots) {
		cfg.Finals = len(cfg.Bots)
	}
	if cfg.Finals > 1 && cfg.Finals < cfg.Players {
		return fmt.Errorf("a finals round of %d-player games needs at least %d finalists", cfg.Players, cfg.Players)
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = runtime.GOMAXPROCS(0)
	}
	return nil
}

// job is one game: a group of entries in seat order on one board.
type job struct {
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
				jobs = append(jobs, job{seats: seats, seed: seed})
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
}

func (p *progress) tick() {
	if p.report == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.report(p.done, p.total)
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
				specs := make([]string, len(j.seats))
				for s, e := range j.seats {
					specs[s] = cfg.Bots[e]
				}
				r, err := match.Runner{}.Play(ctx, cfg.Game, game.Config{Seed: j.seed, Players: len(specs), Params: cfg.Params}, spec.Opener(specs))
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("game %d (%v, seed %d): %w", i+1, specs, j.seed, err)
					}
					mu.Unlock()
					cancel()
					continue
				}
				j.result = r.Result
				prog.tick()
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
		rows[i].Bot = cfg.Bots[i]
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

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
