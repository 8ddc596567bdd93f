// Package match runs matches: it drives any game.State through the game
// interface, asks the bots of each turn concurrently, and records a replay.
// It knows no particular game and no particular kind of bot: bots come
// opened, or from a bot.Opener the caller gives it.
package match

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/replay"
)

// Runner runs matches. The zero Runner is ready to use.
type Runner struct {
	// OnTurn, when set, is called after every turn with the recorded turn and
	// the state after it (for progress bars and live views). It must not
	// change the state.
	OnTurn func(t *replay.Turn, st game.State)
	// From, when set, is a recorded match of the same game, configuration
	// and player count to play on from: its first FromTurn turns are checked
	// and copied into the new replay, and the bots play the turns after.
	From     *replay.Replay
	FromTurn int
}

// Run plays one match of g between bots, seat by seat, and returns its replay.
// ids describe the bots for the replay. The caller opens and closes the bots.
func Run(ctx context.Context, g game.Game, cfg game.Config, bots []bot.Bot, ids []bot.Identity) (*replay.Replay, error) {
	return Runner{}.Run(ctx, g, cfg, bots, ids)
}

// Run plays one match; see the package-level Run.
func (rn Runner) Run(ctx context.Context, g game.Game, cfg game.Config, bots []bot.Bot, ids []bot.Identity) (*replay.Replay, error) {
	if len(bots) != cfg.Players || len(ids) != cfg.Players {
		return nil, fmt.Errorf("%d players but %d bots and %d identities", cfg.Players, len(bots), len(ids))
	}
	st, r, err := rn.start(g, cfg)
	if err != nil {
		return nil, err
	}
	r.Bots = ids
	rec := recorder{budget: make([]int, cfg.Players), spent: make([]int64, cfg.Players)}
	for i := range rec.budget {
		rec.budget[i] = replay.AnswerBudget
	}
	fuel := g.Info().Fuel
	replies := make([]bot.Reply, cfg.Players)
	answers := make([][]byte, cfg.Players)
	clocks := make([]float64, cfg.Players)
	for !st.Done() {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("match stopped at turn %d: %w", st.Turn()+1, err)
		}
		asked := slices.Clone(st.Asked()) // a game may reuse the slice when it applies the turn
		for seat, b := range bots {
			clocks[seat] = clockLeft(b, fuel, rec.spent[seat])
		}
		ask(ctx, st, bots, asked, replies, clocks)
		clear(answers)
		for _, seat := range asked {
			if replies[seat].Status == game.OK {
				// An empty line is an answer too (malformed), not a failure.
				answers[seat] = replies[seat].Line
				if answers[seat] == nil {
					answers[seat] = []byte{}
				}
			}
			rec.spent[seat] += replies[seat].Fuel
		}
		verdicts := st.Apply(answers)
		turn := replay.Turn{Turn: len(r.Turns) + 1}
		for seat := range verdicts {
			wasAsked := slices.Contains(asked, seat)
			if !wasAsked && verdicts[seat].Action == nil {
				continue
			}
			s := rec.seat(seat, replies[seat], verdicts[seat], wasAsked)
			turn.Seats = append(turn.Seats, s)
		}
		turn.Hash = replay.HashString(st.Hash())
		r.Turns = append(r.Turns, turn)
		if rn.OnTurn != nil {
			rn.OnTurn(&r.Turns[len(r.Turns)-1], st)
		}
		clear(replies)
	}
	r.Result = replay.Result{
		Turns:     len(r.Turns),
		Scores:    st.Scores(),
		Placement: st.Placement(),
		Statuses:  r.CountStatuses(),
	}
	return r, nil
}

// start makes the state the bots play from and the replay's head: a new
// match, or the position after FromTurn turns of rn.From.
func (rn Runner) start(g game.Game, cfg game.Config) (game.State, *replay.Replay, error) {
	if rn.From == nil {
		st, err := g.New(cfg)
		if err != nil {
			return nil, nil, err
		}
		return st, &replay.Replay{
			Format: replay.Format, Version: replay.Version, Game: g.Info().ID,
			Params: st.Params(), Seed: cfg.Seed, InitialHash: replay.HashString(st.Hash()),
		}, nil
	}
	from := rn.From
	if from.Version != replay.Version {
		return nil, nil, fmt.Errorf("playing on needs a version %d replay; this one is version %d", replay.Version, from.Version)
	}
	if len(from.Bots) != cfg.Players {
		return nil, nil, fmt.Errorf("the recorded match has %d players, not %d", len(from.Bots), cfg.Players)
	}
	st, err := from.StateAfter(g, rn.FromTurn)
	if err != nil {
		return nil, nil, fmt.Errorf("the recorded match: %w", err)
	}
	if st.Done() {
		return nil, nil, fmt.Errorf("the recorded match is over after turn %d", rn.FromTurn)
	}
	return st, &replay.Replay{
		Format: replay.Format, Version: replay.Version, Game: from.Game,
		Params: from.Params, Seed: from.Seed, InitialHash: from.InitialHash,
		ResumedAfter: rn.FromTurn, Turns: slices.Clone(from.Turns[:rn.FromTurn]),
	}, nil
}

// clockLeft is the share of its game clock a seat has left (bot.Request.Clocks).
func clockLeft(b bot.Bot, fuel game.FuelPolicy, spent int64) float64 {
	if c, ok := b.(bot.Clocked); ok {
		return min(max(c.ClockLeft(), 0), 1)
	}
	if fuel.PerGame > 0 && spent > 0 {
		return max(float64(fuel.PerGame-spent)/float64(fuel.PerGame), 0)
	}
	return 1
}

// Play opens a bot for every seat with open (in seat order), plays the
// match, closes the bots and keeps their logs in the replay.
func (rn Runner) Play(ctx context.Context, g game.Game, cfg game.Config, open bot.Opener) (*replay.Replay, error) {
	if !g.Info().AllowsPlayers(cfg.Players) {
		return nil, fmt.Errorf("%s is for %v players, not %d", g.Info().ID, g.Info().Players, cfg.Players)
	}
	bots := make([]bot.Bot, 0, cfg.Players)
	ids := make([]bot.Identity, 0, cfg.Players)
	closeAll := func() []replay.Log {
		logs := make([]replay.Log, len(bots))
		for i, b := range bots {
			logs[i] = replay.NewLog(i, b.Close())
		}
		return logs
	}
	for seat := 0; seat < cfg.Players; seat++ {
		b, id, err := open(ctx, bot.Match{Game: g, Seed: cfg.Seed, Seat: seat, Params: cfg.Params})
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("seat %d: %w", seat, err)
		}
		bots = append(bots, b)
		ids = append(ids, id)
	}
	r, err := rn.Run(ctx, g, cfg, bots, ids)
	logs := closeAll()
	if err != nil {
		return nil, err
	}
	r.Logs = logs
	return r, nil
}

// stateOnly is a bot that reads the typed state (a house bot): writing its
// JSON observation would be wasted work on the hot path of every match.
type stateOnly interface{ StateOnly() bool }

// ask puts this turn's question to every asked seat at once and waits for
// all answers. Each bot enforces its own limits, so this always returns.
func ask(ctx context.Context, st game.State, bots []bot.Bot, asked []int, replies []bot.Reply, clocks []float64) {
	var wg sync.WaitGroup
	for i, seat := range asked {
		req := bot.Request{Turn: st.Turn(), State: st, Clocks: clocks}
		if so, ok := bots[seat].(stateOnly); !ok || !so.StateOnly() {
			req.Observation = st.AppendObservation(nil, seat)
		}
		if i == len(asked)-1 {
			replies[seat] = bots[seat].Act(ctx, req) // the last one on this goroutine
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[seat] = bots[seat].Act(ctx, req)
		}()
	}
	wg.Wait()
}

// recorder turns what the bots did and what the game made of it into the
// replay's seats, keeping each seat's budget of long answers kept whole.
type recorder struct {
	budget []int
	spent  []int64 // fuel per seat so far
}

func (rc *recorder) seat(seat int, rep bot.Reply, v game.Verdict, asked bool) replay.Seat {
	s := replay.Seat{Seat: seat, Action: v.Action, Fuel: rep.Fuel, Reason: v.Reason}
	switch {
	case !asked:
		s.Status = game.Ignored
		return s
	case rep.Status != game.OK:
		// The bot failed; the game applied its default. Whatever it sent is
		// kept for its author, cut when long: the game never judged it.
		s.Status, s.Reason, s.Failed = rep.Status, rep.Detail, true
		s.SetAnswer(rep.Line, nil)
		return s
	case v.Status != "":
		s.Status = v.Status
	default:
		s.Status = game.OK
	}
	s.SetAnswer(rep.Line, &rc.budget[seat])
	return s
}
