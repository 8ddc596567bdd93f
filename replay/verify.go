package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/arenabots/arena/game"
)

// Config returns the configuration the replay's match was made from.
func (r *Replay) Config() game.Config {
	return game.Config{Seed: r.Seed, Players: len(r.Bots), Params: r.Params}
}

// Verify re-applies the replay's recorded actions to a fresh state of g and
// checks every recorded hash and the result. It needs no bots. The error
// names the first turn that differs.
func Verify(r *Replay, g game.Game) error {
	if g.Info().ID != r.Game {
		return fmt.Errorf("replay is of %q, not %q", r.Game, g.Info().ID)
	}
	st, err := g.New(r.Config())
	if err != nil {
		return fmt.Errorf("starting the match: %w", err)
	}
	if got := HashString(st.Hash()); got != r.InitialHash {
		return fmt.Errorf("initial state hash is %s, replay says %s", got, r.InitialHash)
	}
	for i, t := range r.Turns {
		if st.Done() {
			return fmt.Errorf("turn %d: the match was already over", t.Turn)
		}
		if t.Turn != i+1 {
			return fmt.Errorf("turn %d is numbered %d", i+1, t.Turn)
		}
		answers := make([][]byte, st.Players())
		for _, s := range t.Seats {
			if s.Seat < 0 || s.Seat >= len(answers) {
				return fmt.Errorf("turn %d: no seat %d", t.Turn, s.Seat)
			}
			if s.Action != nil {
				answers[s.Seat] = compact(s.Action)
			}
		}
		verdicts := st.Apply(answers)
		for _, s := range t.Seats {
			if got := verdicts[s.Seat].Action; !bytes.Equal(got, compact(s.Action)) {
				return fmt.Errorf("turn %d, seat %d: the game applied %s, replay says %s", t.Turn, s.Seat, got, s.Action)
			}
		}
		if got := HashString(st.Hash()); got != t.Hash {
			return fmt.Errorf("turn %d: state hash is %s, replay says %s", t.Turn, got, t.Hash)
		}
	}
	if !st.Done() {
		return fmt.Errorf("the replay ends after %d turns but the match is not over", len(r.Turns))
	}
	if !slices.Equal(st.Scores(), r.Result.Scores) {
		return fmt.Errorf("scores are %v, replay says %v", st.Scores(), r.Result.Scores)
	}
	if !slices.Equal(st.Placement(), r.Result.Placement) {
		return fmt.Errorf("placement is %v, replay says %v", st.Placement(), r.Result.Placement)
	}
	if r.Result.Turns != len(r.Turns) {
		return fmt.Errorf("result says %d turns, replay has %d", r.Result.Turns, len(r.Turns))
	}
	return nil
}

// compact removes the white space a hand-edited replay may have added.
func compact(raw []byte) []byte {
	if raw == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}
