package replay

import (
	"bytes"
	"encoding/json"
	"errors"
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

// ErrVersion1 is Verify's answer to a version 1 replay. Version 1 kept
// answers cut and with invalid bytes replaced, and its answers were judged
// by the rules before game.Decode's strict ones, so no status in it can be
// recomputed; checking only its actions would let anyone switch off the
// status checks by relabelling a replay. `arena replay rerun` checks one
// against its bots.
var ErrVersion1 = errors.New("version 1 replay: it predates exact answers, so its statuses cannot be recomputed and verify refuses it (arena replay rerun checks it against its bots; arena replay show still draws it)")

// Verify re-plays the replay's match on a fresh state of g from its recorded
// answers, through the game's own validation, and checks every status,
// reason, applied action and state hash, the bot-side failures for
// consistency, and the result. It needs no bots. The error names the first
// turn that differs.
//
// What it cannot recompute: a bot-side failure (it checks that the seat gave
// the game nothing and that retirement follows the restart rule), and the
// status of an answer kept only as a prefix and hash (it checks the action).
// Those are what `arena replay rerun` checks; Unchecked lists them for a
// replay. A version 1 replay is refused (ErrVersion1).
func Verify(r *Replay, g game.Game) error {
	if r.Version == 1 {
		return ErrVersion1
	}
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
	w := walk{failures: make([]int, st.Players()), budget: make([]int, st.Players())}
	w.reset()
	for i := range r.Turns[:n] {
		t := &r.Turns[i]
		if t.Turn != i+1 {
			return nil, fmt.Errorf("turn %d is numbered %d", i+1, t.Turn)
		}
		if t.Turn == r.ResumedAfter+1 {
			w.reset() // other bots from here on
		}
		if err := r.replayTurn(st, t, &w); err != nil {
			return nil, fmt.Errorf("turn %d: %w", t.Turn, err)
		}
	}
	return st, nil
}

// walk is what checking a turn needs from the turns before it, per seat.
type walk struct {
	failures []int // bot-side failures so far, or retired
	budget   []int // bytes of long answers the recorder still keeps whole
}

// reset starts the count for a new set of bots, as the runner does.
func (w *walk) reset() {
	clear(w.failures)
	for i := range w.budget {
		w.budget[i] = AnswerBudget
	}
}

// replayTurn checks one recorded turn against the game and applies it.
func (r *Replay) replayTurn(st game.State, t *Turn, w *walk) error {
	failures := w.failures
	if st.Done() {
		return fmt.Errorf("the match was already over")
	}
	n := st.Players()
	asked := slices.Clone(st.Asked()) // a game may reuse the slice when it applies the turn
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
		if !slices.Contains(asked, s.Seat) {
			if s.Status != game.Ignored || s.Failed || len(answer) > 0 || s.Fuel != 0 {
				return fmt.Errorf("seat %d was not asked, yet the replay records an answer of it (%s)", s.Seat, s.Status)
			}
			continue
		}
		if r.Version != 1 {
			if err := w.keep(s, len(answer), whole); err != nil {
				return err
			}
		}
		switch r.kindOf(s, whole) {
		case judgedSeat:
			answers[s.Seat] = answer
			judged[s.Seat] = true
		case failedSeat:
			if !slices.Contains(botFailures, s.Status) {
				return fmt.Errorf("seat %d: %q is not a status a bot failure gets", s.Seat, s.Status)
			}
			if err := checkRetirement(s, failures); err != nil {
				return err
			}
		default:
			// The exact answer is not here (cut, or version 1 when show
			// draws one): the recorded action stands in for it, so the
			// game's action is still checked.
			answers[s.Seat] = compact(s.Action)
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
		if !sameJSON(v.Action, s.Action) {
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

// keep checks a seat's answer against the recorder's rule for long answers
// (Seat.SetAnswer): a judged answer over AnswerPrefix bytes is kept whole
// exactly while the seat's budget covers it, a failed seat's is always cut.
// Without this, marking an answer cut would switch off its status check.
func (w *walk) keep(s *Seat, kept int, whole bool) error {
	n := kept
	if !whole {
		n = s.AnswerLen
	}
	if n <= AnswerPrefix {
		return nil
	}
	switch {
	case s.Failed && whole:
		return fmt.Errorf("seat %d: a failed answer of %d bytes is kept whole; the recorder cuts those to %d bytes with answer_sha256", s.Seat, n, AnswerPrefix)
	case s.Failed:
		return nil
	case whole && w.budget[s.Seat] < n:
		return fmt.Errorf("seat %d: an answer of %d bytes is kept whole with %d bytes of the seat's budget of long answers left; the recorder would have cut it", s.Seat, n, w.budget[s.Seat])
	case whole:
		w.budget[s.Seat] -= n
	case w.budget[s.Seat] >= n:
		return fmt.Errorf("seat %d: an answer of %d bytes is cut (answer_sha256) with %d bytes of the seat's budget of long answers left; the recorder would have kept it whole", s.Seat, n, w.budget[s.Seat])
	}
	return nil
}

// seatKind is how far Verify can check an asked seat's record.
type seatKind int

const (
	judgedSeat   seatKind = iota // the exact answer is here: status and reason recomputed
	failedSeat                   // a bot-side failure: checked for consistency
	cutSeat                      // only a prefix (and hash) is here: action checked
	version1Seat                 // version 1 kept no exact answers: action checked
)

// kind says how an asked seat is checked.
func (r *Replay) kind(s *Seat) seatKind {
	_, whole, _ := s.AnswerBytes()
	return r.kindOf(s, whole)
}

// kindOf is kind given whether the seat's answer is kept whole.
func (r *Replay) kindOf(s *Seat, whole bool) seatKind {
	switch {
	case r.Version == 1:
		return version1Seat
	case s.Failed:
		return failedSeat
	case !whole:
		return cutSeat
	}
	return judgedSeat
}

// Unchecked says, one line each, what Verify could not recompute in this
// replay and checked for consistency only; `arena replay rerun` checks it
// against the bots. Fuel figures are never Verify's to check.
func (r *Replay) Unchecked() []string {
	var failed, cut int
	for _, t := range r.Turns {
		for i := range t.Seats {
			switch r.kind(&t.Seats[i]) {
			case failedSeat:
				failed++
			case cutSeat:
				cut++
			}
		}
	}
	var out []string
	if failed > 0 {
		out = append(out, fmt.Sprintf("%d bot-side failures (fuel, timeout, crash, retired, an over-long line): the status is the bot side's; checked against the restart rule only", failed))
	}
	if cut > 0 {
		out = append(out, fmt.Sprintf("%d answers kept only as a prefix and sha256: their status and reason are not recomputed, their action is", cut))
	}
	return append(out, "fuel figures: not recomputed (rerun compares them)")
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

// sameJSON reports whether applied, the game's compact JSON, is recorded
// (compacted). A recorded action without white space, as the runner writes
// them all, is compared as it is: compacting it would give the same bytes,
// and it is most of what checking a long match costs otherwise.
func sameJSON(applied, recorded []byte) bool {
	if recorded != nil && bytes.IndexAny(recorded, " \t\r\n") < 0 {
		return bytes.Equal(applied, recorded)
	}
	return bytes.Equal(applied, compact(recorded))
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
