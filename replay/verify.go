package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/protocol"
)

// Config returns the configuration the replay's match was made from.
func (r *Replay) Config() game.Config {
	return game.Config{Seed: r.Seed, Players: len(r.Bots), Params: r.Params}
}

// botFailures are the statuses a bot's side can give an answer the game
// never saw (protocol.Reply documents which kind of bot gives which).
var botFailures = []game.Status{game.Fuel, game.Timeout, game.Crash, game.Retired, game.Malformed, game.Illegal}

// Verify re-plays the replay's match on a fresh state of g from its recorded
// answers, through the game's own validation, and checks every status,
// reason, applied action and state hash, the bot-side failures for
// consistency, and the result. It needs no bots. The error names the first
// turn that differs.
//
// What it cannot recompute: a bot-side failure (it checks that the seat gave
// the game nothing and that retirement follows the restart rule), and the
// status of an answer kept only as a prefix and hash (it checks the action).
// Those are what `arena replay rerun` checks. A version 1 replay is checked
// from its actions only: its answers were not kept exactly.
func Verify(r *Replay, g game.Game) error {
	st, err := r.StateAfter(g, len(r.Turns))
	if err != nil {
		return err
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
	counts := r.CountStatuses()
	if len(counts) != len(r.Result.Statuses) {
		return fmt.Errorf("result has status counts for %d seats, the match has %d", len(r.Result.Statuses), len(counts))
	}
	for seat, c := range counts {
		want := r.Result.Statuses[seat]
		if !maps.Equal(c, want) && !(len(c) == 0 && len(want) == 0) {
			return fmt.Errorf("seat %d: the turns give the status counts %v, result says %v", seat, c, want)
		}
	}
	return nil
}

// CountStatuses counts each seat's statuses over the turns its bot played
// (those after ResumedAfter), as Result.Statuses holds them.
func (r *Replay) CountStatuses() []map[game.Status]int {
	counts := make([]map[game.Status]int, len(r.Bots))
	for i := range counts {
		counts[i] = map[game.Status]int{}
	}
	for _, t := range r.Turns {
		if t.Turn <= r.ResumedAfter {
			continue
		}
		for _, s := range t.Seats {
			if s.Seat >= 0 && s.Seat < len(counts) {
				counts[s.Seat][s.Status]++
			}
		}
	}
	return counts
}

// StateAfter starts the replay's match and re-plays its first n turns with
// every check of Verify, returning the state after them (n = 0: the start).
func (r *Replay) StateAfter(g game.Game, n int) (game.State, error) {
	if g.Info().ID != r.Game {
		return nil, fmt.Errorf("replay is of %q, not %q", r.Game, g.Info().ID)
	}
	if n < 0 || n > len(r.Turns) {
		return nil, fmt.Errorf("turn %d: the replay has turns 0 to %d", n, len(r.Turns))
	}
	if r.ResumedAfter < 0 || r.ResumedAfter > len(r.Turns) {
		return nil, fmt.Errorf("resumed_after %d is not a turn of the replay", r.ResumedAfter)
	}
	st, err := g.New(r.Config())
	if err != nil {
		return nil, fmt.Errorf("starting the match: %w", err)
	}
	if got := HashString(st.Hash()); got != r.InitialHash {
		return nil, fmt.Errorf("initial state hash is %s, replay says %s", got, r.InitialHash)
	}
	failures := make([]int, st.Players())
	for i := range r.Turns[:n] {
		t := &r.Turns[i]
		if t.Turn != i+1 {
			return nil, fmt.Errorf("turn %d is numbered %d", i+1, t.Turn)
		}
		if t.Turn == r.ResumedAfter+1 {
			clear(failures) // other bots from here on
		}
		if err := r.replayTurn(st, t, failures); err != nil {
			return nil, fmt.Errorf("turn %d: %w", t.Turn, err)
		}
	}
	return st, nil
}

// replayTurn checks one recorded turn against the game and applies it.
func (r *Replay) replayTurn(st game.State, t *Turn, failures []int) error {
	if st.Done() {
		return fmt.Errorf("the match was already over")
	}
	n := st.Players()
	asked := st.Asked()
	answers := make([][]byte, n)
	// judged: the game's verdict on this seat's answer is checked in full.
	judged := make([]bool, n)
	recorded := make([]bool, n)
	for i := range t.Seats {
		s := &t.Seats[i]
		if s.Seat < 0 || s.Seat >= n {
			return fmt.Errorf("no seat %d", s.Seat)
		}
		if i > 0 && s.Seat <= t.Seats[i-1].Seat {
			return fmt.Errorf("seat %d is out of order or twice", s.Seat)
		}
		recorded[s.Seat] = true
		if failures[s.Seat] == retired && slices.Contains(asked, s.Seat) && s.Status != game.Retired {
			return fmt.Errorf("seat %d: status %s after the bot was retired", s.Seat, s.Status)
		}
		answer, whole, err := s.AnswerBytes()
		if err != nil {
			return fmt.Errorf("seat %d: %w", s.Seat, err)
		}
		switch {
		case r.Version == 1:
			if s.Action != nil {
				answers[s.Seat] = compact(s.Action)
			}
		case !slices.Contains(asked, s.Seat):
			if s.Status != game.Ignored || s.Failed || len(answer) > 0 || s.Fuel != 0 {
				return fmt.Errorf("seat %d was not asked, yet the replay records an answer of it (%s)", s.Seat, s.Status)
			}
		case s.Failed:
			if !slices.Contains(botFailures, s.Status) {
				return fmt.Errorf("seat %d: %q is not a status a bot failure gets", s.Seat, s.Status)
			}
			if err := checkRetirement(s, failures); err != nil {
				return err
			}
		case !whole:
			// Only a prefix was kept: the recorded action stands in for
			// the answer, so the game's action is still checked.
			answers[s.Seat] = compact(s.Action)
		default:
			answers[s.Seat] = answer
			judged[s.Seat] = true
		}
	}
	for _, seat := range asked {
		if !recorded[seat] {
			return fmt.Errorf("seat %d was asked and the replay does not say what it did", seat)
		}
	}
	verdicts := st.Apply(answers)
	for seat, v := range verdicts {
		if !recorded[seat] && v.Action != nil {
			return fmt.Errorf("the game applied %s for seat %d, which the replay does not record", v.Action, seat)
		}
	}
	for _, s := range t.Seats {
		v := verdicts[s.Seat]
		if !bytes.Equal(v.Action, compact(s.Action)) {
			return fmt.Errorf("seat %d: the game applied %s, replay says %s", s.Seat, orNone(v.Action), orNone(s.Action))
		}
		if !judged[s.Seat] {
			continue
		}
		if v.Status == "" {
			v.Status = game.OK // as the runner records a verdict without status
		}
		if v.Status != s.Status {
			return fmt.Errorf("seat %d: the game gives the answer %q the status %s, replay says %s", s.Seat, clip(s.Answer), v.Status, s.Status)
		}
		if v.Reason != s.Reason {
			return fmt.Errorf("seat %d: the game gives the reason %q, replay says %q", s.Seat, v.Reason, s.Reason)
		}
	}
	if got := HashString(st.Hash()); got != t.Hash {
		return fmt.Errorf("state hash is %s, replay says %s", got, t.Hash)
	}
	return nil
}

// checkRetirement applies the protocol's restart rule to a bot-side
// failure: a bot is retired after MaxRestarts+1 failures in a match, never
// before, and stays retired. A bot kind that never retires (a potm entry)
// passes too; only an impossible sequence fails.
func checkRetirement(s *Seat, failures []int) error {
	limit := protocol.MaxRestarts + 1
	if s.Status == game.Retired {
		if failures[s.Seat] != retired && failures[s.Seat] < limit {
			return fmt.Errorf("seat %d is retired after %d failures; the protocol retires a bot after %d", s.Seat, failures[s.Seat], limit)
		}
		failures[s.Seat] = retired
		return nil
	}
	failures[s.Seat]++
	return nil
}

// retired marks a retired seat in the failure counts.
const retired = -1

func orNone(raw []byte) string {
	if raw == nil {
		return "nothing"
	}
	return string(raw)
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
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
