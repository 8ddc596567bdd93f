// Package replay is the record of a match: versioned, documented JSON
// (docs/replay.md) from which the match can be checked and re-played.
//
// A replay holds everything a match is a function of (game, parameters, seed,
// bots) and, per turn, every asked seat's raw answer, its status, the action
// applied for it, the fuel it spent, and the hash of the state after the turn.
package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
)

// Format and Version name this layout; a change gets a new version.
const (
	Format  = "arena-replay"
	Version = 1
)

// MaxRecordedAnswer caps the raw answer kept per seat and turn.
const MaxRecordedAnswer = 4 << 10

// Replay is one match.
type Replay struct {
	Format  string         `json:"format"`
	Version int            `json:"version"`
	Game    string         `json:"game"`
	Params  game.Params    `json:"params"`
	Seed    uint64         `json:"seed"`
	Bots    []bot.Identity `json:"bots"`
	// InitialHash is the hash of the state before the first turn.
	InitialHash string `json:"initial_hash"`
	Turns       []Turn `json:"turns"`
	Result      Result `json:"result"`
}

// Turn is one resolved turn.
type Turn struct {
	Turn  int    `json:"turn"` // 1 for the first turn
	Seats []Seat `json:"seats"`
	Hash  string `json:"hash"` // of the state after this turn
}

// Seat is what one asked seat did in one turn.
type Seat struct {
	Seat   int             `json:"seat"`
	Status game.Status     `json:"status"`
	Answer string          `json:"answer,omitempty"` // the raw line, capped
	Cut    bool            `json:"cut,omitempty"`    // Answer was longer and was cut
	Action json.RawMessage `json:"action,omitempty"` // what was applied for the seat
	Reason string          `json:"reason,omitempty"`
	Fuel   int64           `json:"fuel,omitempty"`
}

// Result is how the match ended.
type Result struct {
	Turns     int                   `json:"turns"`
	Scores    []int64               `json:"scores"`
	Placement []int                 `json:"placement"`
	Statuses  []map[game.Status]int `json:"statuses"`
}

// HashString writes a state hash as the replay does.
func HashString(h uint64) string { return fmt.Sprintf("%016x", h) }

// Marshal encodes a replay as JSON with one turn per line, so that a replay
// reads and diffs well and stays small. The same replay always encodes to the
// same bytes.
func (r *Replay) Marshal() ([]byte, error) {
	head := *r
	head.Turns, head.Result = nil, Result{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		*Replay
		Turns  any `json:"turns,omitempty"`
		Result any `json:"result,omitempty"`
	}{Replay: &head}); err != nil {
		return nil, err
	}
	out := append([]byte(nil), bytes.TrimSuffix(buf.Bytes(), []byte("}\n"))...)
	out = append(out, ",\n\"turns\":["...)
	for i := range r.Turns {
		buf.Reset()
		if err := enc.Encode(&r.Turns[i]); err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '\n')
		out = append(out, bytes.TrimRight(buf.Bytes(), "\n")...)
	}
	buf.Reset()
	if err := enc.Encode(&r.Result); err != nil {
		return nil, err
	}
	out = append(out, "\n],\n\"result\":"...)
	out = append(out, bytes.TrimRight(buf.Bytes(), "\n")...)
	return append(out, "}\n"...), nil
}

// Parse decodes a replay and checks its format and version.
func Parse(data []byte) (*Replay, error) {
	var r Replay
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("not a replay: %w", err)
	}
	if r.Format != Format {
		return nil, fmt.Errorf("not a replay: format is %q, want %q", r.Format, Format)
	}
	if r.Version != Version {
		return nil, fmt.Errorf("replay version %d is not supported (this build reads version %d)", r.Version, Version)
	}
	return &r, nil
}

// Load reads and parses a replay file.
func Load(path string) (*Replay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Save writes a replay file.
func (r *Replay) Save(path string) error {
	data, err := r.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
