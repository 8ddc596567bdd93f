package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/replay"
)

// maxFrameTurns bounds how many turns the viewer rebuilds from one replay, so
// that a hostile replay file cannot make the server work without end.
const maxFrameTurns = 20000

// A framer turns the states of one match into the frames the viewer draws:
// the game's own observation (seen from seat 0, as every game here is of
// perfect information), so the browser draws exactly what bots are told.
// A field "ore" (a map of integers) is sent whole once and then as changes
// only, which keeps a 400-turn replay of a game with a map small.
type framer struct {
	lastOre []int64 // the ore map of the previous frame, row-major
}

// frame encodes the state after the latest turn.
func (f *framer) frame(st game.State) (json.RawMessage, error) {
	obs := st.AppendObservation(nil, 0)
	if !bytes.Contains(obs, []byte(`"ore":`)) {
		return obs, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(obs, &fields); err != nil {
		return nil, fmt.Errorf("reading the observation: %w", err)
	}
	var rows [][]int64
	if err := json.Unmarshal(fields["ore"], &rows); err != nil {
		return nil, fmt.Errorf("reading the ore map: %w", err)
	}
	ore := make([]int64, 0, len(rows)*len(rows))
	for _, r := range rows {
		ore = append(ore, r...)
	}
	if len(f.lastOre) == len(ore) {
		// [index, value] pairs of the cells that changed.
		diff := []byte{'['}
		for i, v := range ore {
			if v != f.lastOre[i] {
				if len(diff) > 1 {
					diff = append(diff, ',')
				}
				diff = append(diff, '[')
				diff = strconv.AppendInt(diff, int64(i), 10)
				diff = append(diff, ',')
				diff = strconv.AppendInt(diff, v, 10)
				diff = append(diff, ']')
			}
		}
		fields["ore_diff"] = append(diff, ']')
		delete(fields, "ore")
	}
	f.lastOre = ore
	return json.Marshal(fields)
}

// viewData is everything the viewer needs for one match: the replay's own
// record (passed through as it is, so fields other versions add reach the
// browser unchanged) and one frame per state, the first before turn 1.
type viewData struct {
	Game    string            `json:"game"`
	Name    string            `json:"name"`
	Players int               `json:"players"`
	Bots    []string          `json:"bots"`
	Frames  []json.RawMessage `json:"frames"`
	Replay  json.RawMessage   `json:"replay"`
	Done    bool              `json:"done"`
}

// buildView re-applies a replay's recorded actions to rebuild every state.
// A replay that does not re-apply (a different build of a game, a hand-made
// file) still shows: the frames stop where the states stop agreeing.
func buildView(g game.Game, r *replay.Replay) (*viewData, error) {
	return buildViewLogs(g, r, true)
}

// buildViewLogs is buildView; without keepLogs the bots' stderr, which newer
// replays carry, is left out (on the platform a log is its owner's only).
func buildViewLogs(g game.Game, r *replay.Replay, keepLogs bool) (*viewData, error) {
	if g.Info().ID != r.Game {
		return nil, fmt.Errorf("replay is of %q, not %q", r.Game, g.Info().ID)
	}
	if len(r.Bots) == 0 || len(r.Bots) > 8 {
		return nil, fmt.Errorf("replay has %d bots", len(r.Bots))
	}
	if len(r.Turns) > maxFrameTurns {
		return nil, fmt.Errorf("replay has %d turns; the viewer shows at most %d", len(r.Turns), maxFrameTurns)
	}
	st, err := g.New(r.Config())
	if err != nil {
		return nil, fmt.Errorf("starting the match: %w", err)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if !keepLogs && bytes.Contains(raw, []byte(`"logs":`)) {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, err
		}
		delete(fields, "logs")
		if raw, err = json.Marshal(fields); err != nil {
			return nil, err
		}
	}
	v := &viewData{Game: r.Game, Name: g.Info().Name, Players: len(r.Bots), Replay: raw, Done: true}
	for _, b := range r.Bots {
		name := b.Name
		if name == "" {
			name = b.Spec
		}
		v.Bots = append(v.Bots, name)
	}
	var f framer
	first, err := f.frame(st)
	if err != nil {
		return nil, err
	}
	v.Frames = append(v.Frames, first)
	size := len(raw) + len(first)
	for _, t := range r.Turns {
		if st.Done() {
			break
		}
		st.Apply(turnAnswers(st, &t))
		fr, err := f.frame(st)
		if err != nil {
			return nil, err
		}
		if size += len(fr); size > maxViewBytes {
			return nil, fmt.Errorf("its frames take more than the %d MiB the viewer shows of one replay", maxViewBytes>>20)
		}
		v.Frames = append(v.Frames, fr)
	}
	return v, nil
}

// maxViewBytes bounds the frames and replay of one view, checked as they
// are built: a small file of many empty turns on a large board rebuilds to
// far more than its size (a red team's 700 KB made 30 MB).
var maxViewBytes = 64 << 20 // a variable for the tests

// turnAnswers is what each seat answered in a recorded turn, in seat order
// (nil for a seat that gave no action: the game's default).
func turnAnswers(st game.State, t *replay.Turn) [][]byte {
	answers := make([][]byte, st.Players())
	for _, s := range t.Seats {
		if s.Seat >= 0 && s.Seat < len(answers) && len(s.Action) > 0 {
			answers[s.Seat] = s.Action
		}
	}
	return answers
}
