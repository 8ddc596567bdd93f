package match

import (
	"context"
	"fmt"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/replay"
)

// Rerun plays the replay's match again with the bots named by specs (the
// replay's own, or where they are found now) and checks that every seat gave
// the same answer with the same status, spent the same fuel, and that every
// state hash and the result are the same. A wasm match must re-run
// bit-identically; a difference is reported at the first turn it shows.
func (rn Runner) Rerun(ctx context.Context, r *replay.Replay, g game.Game, specs []string) error {
	played, err := rn.Play(ctx, g, r.Seed, r.Params, specs)
	if err != nil {
		return err
	}
	return Compare(r, played.Replay)
}

// Compare reports the first difference between a recorded match and a re-run.
func Compare(want, got *replay.Replay) error {
	for i := 0; i < len(want.Turns) && i < len(got.Turns); i++ {
		w, g := want.Turns[i], got.Turns[i]
		if len(w.Seats) != len(g.Seats) {
			return fmt.Errorf("turn %d: %d seats answered, recorded %d", w.Turn, len(g.Seats), len(w.Seats))
		}
		for j := range w.Seats {
			ws, gs := w.Seats[j], g.Seats[j]
			switch {
			case ws.Status != gs.Status:
				return fmt.Errorf("turn %d, seat %d: status %s, recorded %s (%s)", w.Turn, ws.Seat, gs.Status, ws.Status, gs.Reason)
			case ws.Answer != gs.Answer:
				return fmt.Errorf("turn %d, seat %d: answered %q, recorded %q", w.Turn, ws.Seat, gs.Answer, ws.Answer)
			case ws.Fuel != gs.Fuel:
				return fmt.Errorf("turn %d, seat %d: spent %d fuel, recorded %d", w.Turn, ws.Seat, gs.Fuel, ws.Fuel)
			}
		}
		if w.Hash != g.Hash {
			return fmt.Errorf("turn %d: state hash %s, recorded %s", w.Turn, g.Hash, w.Hash)
		}
	}
	if len(want.Turns) != len(got.Turns) {
		return fmt.Errorf("the re-run lasted %d turns, recorded %d", len(got.Turns), len(want.Turns))
	}
	return nil
}
