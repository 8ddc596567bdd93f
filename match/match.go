// Package match runs matches: it drives any game.State through the game
// interface, asks the bots of each turn concurrently, and records a replay.
// It knows no particular game and no particular kind of bot.
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
	st, err := g.New(cfg)
	if err != nil {
		return nil, err
	}
	r := &replay.Replay{
		Format:      replay.Format,
		Version:     replay.Version,
		Game:        g.Info().ID,
		Params:      st.Params(),
		Seed:        cfg.Seed,
		Bots:        ids,
		InitialHash: replay.HashString(st.Hash()),
	}
	counts := make([]map[game.Status]int, cfg.Players)
	for i := range counts {
		counts[i] = map[game.Status]int{}
	}
	replies := make([]bot.Reply, cfg.Players)
	answers := make([][]byte, cfg.Players)
	for !st.Done() {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("match stopped at turn %d: %w", st.Turn()+1, err)
		}
		asked := st.Asked()
		ask(ctx, st, bots, asked, replies)
		clear(answers)
		for _, seat := range asked {
			if replies[seat].Status == game.OK {
				answers[seat] = replies[seat].Line
			}
		}
		verdicts := st.Apply(answers)
		turn := replay.Turn{Turn: len(r.Turns) + 1}
		for seat := range verdicts {
			wasAsked := slices.Contains(asked, seat)
			if !wasAsked && verdicts[seat].Action == nil {
				continue
			}
			rec := record(replies[seat], verdicts[seat], wasAsked)
			counts[seat][rec.Status]++
			rec.Seat = seat
			turn.Seats = append(turn.Seats, rec)
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
		Statuses:  counts,
	}
	return r, nil
}

// stateOnly is a bot that reads the typed state (a house bot): writing its
// JSON observation would be wasted work on the hot path of every match.
type stateOnly interface{ StateOnly() bool }

// ask puts this turn's question to every asked seat at once and waits for
// all answers. Each bot enforces its own limits, so this always returns.
func ask(ctx context.Context, st game.State, bots []bot.Bot, asked []int, replies []bot.Reply) {
	var wg sync.WaitGroup
	for i, seat := range asked {
		req := bot.Request{Turn: st.Turn(), State: st}
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

// record merges what the bot did and what the game made of it.
func record(rep bot.Reply, v game.Verdict, asked bool) replay.Seat {
	s := replay.Seat{Action: v.Action, Fuel: rep.Fuel, Reason: v.Reason}
	switch {
	case !asked:
		s.Status = game.Ignored
	case rep.Status != game.OK:
		s.Status = rep.Status // the bot failed; the game applied its default
		s.Reason = rep.Detail
	case v.Status != "":
		s.Status = v.Status
	default:
		s.Status = game.OK
	}
	line := rep.Line
	if len(line) > replay.MaxRecordedAnswer {
		line, s.Cut = line[:replay.MaxRecordedAnswer], true
	}
	s.Answer = string(line)
	return s
}
