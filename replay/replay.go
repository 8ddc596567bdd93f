// Package replay is the record of a match: versioned, documented JSON
// (docs/replay.md) from which the match can be checked and re-played.
//
// A replay holds everything a match is a function of (game, parameters, seed,
// bots) and, per turn, every asked seat's exact answer, its status, the action
// applied for it, the fuel it spent, and the hash of the state after the turn;
// then the result and the first 64 KiB of each bot's stderr.
package replay

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"unicode/utf8"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/hashing"
)

// Format and Version name this layout; a change gets a new version.
// Version 2 keeps answers as exact bytes and keeps the bots' logs; version 1
// replays are still read (see docs/replay.md for what checking them skips).
const (
	Format  = "arena-replay"
	Version = 2
)

// Answers up to AnswerPrefix bytes are always kept whole. A longer one is
// kept whole while its seat has AnswerBudget bytes of long answers left in
// the match; after that only its first AnswerPrefix bytes are kept, with its
// length and sha256. So an honest replay keeps every answer exactly, and a
// bot that floods its answers cannot grow the replay past a bound.
const (
	AnswerPrefix = 4 << 10
	AnswerBudget = 1 << 20
)

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
	// ResumedAfter, when non-zero, says that turns 1..ResumedAfter were
	// copied from another replay and the bots named here played the rest
	// (arena match --from FILE --turn N).
	ResumedAfter int    `json:"resumed_after,omitempty"`
	Turns        []Turn `json:"turns"`
	Result       Result `json:"result"`
	// Logs holds, per seat, the first 64 KiB the bot wrote to stderr.
	Logs []Log `json:"logs,omitempty"`
}

// Turn is one resolved turn.
type Turn struct {
	Turn  int    `json:"turn"` // 1 for the first turn
	Seats []Seat `json:"seats"`
	Hash  string `json:"hash"` // of the state after this turn
}

// Seat is what one asked seat did in one turn.
type Seat struct {
	Seat   int         `json:"seat"`
	Status game.Status `json:"status"`
	// Failed is true when the bot gave the game no answer to judge: its
	// status (fuel, timeout, crash, retired, or malformed/illegal decided
	// by the kind of bot) came from the bot's side. The answer fields then
	// hold whatever partial line it sent, for its author.
	Failed bool `json:"failed,omitempty"`
	// The answer line's exact bytes: Answer when they are valid UTF-8,
	// AnswerBase64 otherwise. When AnswerSHA256 is set, the answer was
	// AnswerLen bytes long and only its first AnswerPrefix bytes are here.
	Answer       string          `json:"answer,omitempty"`
	AnswerBase64 string          `json:"answer_base64,omitempty"`
	AnswerLen    int             `json:"answer_len,omitempty"`
	AnswerSHA256 string          `json:"answer_sha256,omitempty"`
	Cut          bool            `json:"cut,omitempty"`    // version 1 only: Answer was cut to 4 KiB
	Action       json.RawMessage `json:"action,omitempty"` // what was applied for the seat
	Reason       string          `json:"reason,omitempty"`
	Fuel         int64           `json:"fuel,omitempty"`
}

// Result is how the match ended.
type Result struct {
	Turns     int                   `json:"turns"`
	Scores    []int64               `json:"scores"`
	Placement []int                 `json:"placement"`
	Statuses  []map[game.Status]int `json:"statuses"`
}

// Log is the kept part of one seat's stderr, in the answer's encoding.
type Log struct {
	Seat   int    `json:"seat"`
	Text   string `json:"text,omitempty"`
	Base64 string `json:"base64,omitempty"`
}

// NewLog encodes a seat's log losslessly.
func NewLog(seat int, data []byte) Log {
	if utf8.Valid(data) {
		return Log{Seat: seat, Text: string(data)}
	}
	return Log{Seat: seat, Base64: base64.StdEncoding.EncodeToString(data)}
}

// Bytes returns the log's exact bytes.
func (l Log) Bytes() ([]byte, error) {
	if l.Base64 != "" {
		if l.Text != "" {
			return nil, errors.New("log has both text and base64")
		}
		return base64.StdEncoding.Strict().DecodeString(l.Base64)
	}
	return []byte(l.Text), nil
}

// SetAnswer records line, whole when it is short or budget (the seat's
// bytes of long answers still to keep whole in this match, nil for none)
// allows, which it then reduces; otherwise its prefix, length and hash.
func (s *Seat) SetAnswer(line []byte, budget *int) {
	s.Answer, s.AnswerBase64, s.AnswerLen, s.AnswerSHA256 = "", "", 0, ""
	kept := line
	if len(line) > AnswerPrefix {
		if budget != nil && *budget >= len(line) {
			*budget -= len(line)
		} else {
			s.AnswerLen, s.AnswerSHA256 = len(line), hashing.SHA256Hex(line)
			kept = line[:AnswerPrefix]
		}
	}
	if utf8.Valid(kept) {
		s.Answer = string(kept)
	} else {
		s.AnswerBase64 = base64.StdEncoding.EncodeToString(kept)
	}
}

// AnswerBytes returns the recorded answer bytes and whether they are the
// whole answer (false when only a prefix was kept).
func (s *Seat) AnswerBytes() ([]byte, bool, error) {
	var b []byte
	switch {
	case s.AnswerBase64 != "" && s.Answer != "":
		return nil, false, errors.New("answer given both as text and as base64")
	case s.AnswerBase64 != "":
		var err error
		if b, err = base64.StdEncoding.Strict().DecodeString(s.AnswerBase64); err != nil {
			return nil, false, fmt.Errorf("answer_base64: %w", err)
		}
		if utf8.Valid(b) {
			return nil, false, errors.New("answer_base64 holds valid UTF-8, which is written as answer")
		}
	default:
		b = []byte(s.Answer)
	}
	if s.AnswerSHA256 == "" {
		if s.AnswerLen != 0 {
			return nil, false, errors.New("answer_len without answer_sha256")
		}
		return b, !s.Cut, nil
	}
	if sum, err := hex.DecodeString(s.AnswerSHA256); err != nil || len(sum) != sha256.Size {
		return nil, false, errors.New("answer_sha256 is not a sha256 in hex")
	}
	if len(b) != AnswerPrefix || s.AnswerLen <= AnswerPrefix {
		return nil, false, fmt.Errorf("a cut answer keeps its first %d bytes of more: %d kept of %d", AnswerPrefix, len(b), s.AnswerLen)
	}
	return b, false, nil
}

// plainAnswer says whether the answer is kept as text and whole, as
// nearly every answer is: AnswerBytes then has nothing to refuse.
func (s *Seat) plainAnswer() bool {
	return s.AnswerBase64 == "" && s.AnswerSHA256 == "" && s.AnswerLen == 0
}

// AnswerDigest identifies the answer's exact bytes: its length and sha256,
// whether it was kept whole or cut. Two answers are the same bytes exactly
// when their digests are equal.
func (s *Seat) AnswerDigest() (string, error) {
	b, whole, err := s.AnswerBytes()
	if err != nil {
		return "", err
	}
	if !whole && s.AnswerSHA256 == "" { // version 1: a cut answer has no hash
		return fmt.Sprintf("cut:%q", b), nil
	}
	if !whole {
		return fmt.Sprintf("%d:%s", s.AnswerLen, s.AnswerSHA256), nil
	}
	return fmt.Sprintf("%d:%s", len(b), hashing.SHA256Hex(b)), nil
}

// HashString writes a state hash as the replay does.
func HashString(h uint64) string { return fmt.Sprintf("%016x", h) }

// Marshal encodes a replay as JSON with one turn per line (and one log per
// line), so that a replay reads and diffs well and stays small. The same
// replay always encodes to the same bytes.
func (r *Replay) Marshal() ([]byte, error) {
	head := *r
	head.Turns, head.Result, head.Logs = nil, Result{}, nil
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		*Replay
		Turns  any `json:"turns,omitempty"`
		Result any `json:"result,omitempty"`
		Logs   any `json:"logs,omitempty"`
	}{Replay: &head}); err != nil {
		return nil, err
	}
	out := append([]byte(nil), bytes.TrimSuffix(buf.Bytes(), []byte("}\n"))...)
	line := func(v any) error {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		out = append(out, bytes.TrimRight(buf.Bytes(), "\n")...)
		return nil
	}
	out = append(out, ",\n\"turns\":["...)
	for i := range r.Turns {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '\n')
		if err := line(&r.Turns[i]); err != nil {
			return nil, err
		}
	}
	out = append(out, "\n],\n\"result\":"...)
	if err := line(&r.Result); err != nil {
		return nil, err
	}
	if len(r.Logs) > 0 {
		out = append(out, ",\n\"logs\":["...)
		for i := range r.Logs {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, '\n')
			if err := line(&r.Logs[i]); err != nil {
				return nil, err
			}
		}
		out = append(out, "\n]"...)
	}
	return append(out, "}\n"...), nil
}

// Parse decodes a replay and checks its format, its version, that it holds
// no field its version does not define (a field this build does not know, or
// one of version 2's in a version 1 file: declaring a replay older must not
// switch off the checks its real version gets), and that every recorded
// answer and log decodes.
func Parse(data []byte) (*Replay, error) {
	r, err := decode(data)
	if err != nil {
		return nil, err
	}
	if r.Format != Format {
		return nil, fmt.Errorf("not a replay: format is %q, want %q", r.Format, Format)
	}
	if r.Version != Version && r.Version != 1 {
		return nil, fmt.Errorf("replay version %d is not supported (this build reads versions 1 and %d)", r.Version, Version)
	}
	if r.Version == 1 {
		if err := r.checkVersion1(); err != nil {
			return nil, err
		}
	}
	if r.ResumedAfter < 0 {
		return nil, fmt.Errorf("resumed_after is %d", r.ResumedAfter)
	}
	for i, b := range r.Bots {
		if err := checkIdentity(b); err != nil {
			return nil, fmt.Errorf("bot of seat %d: %w", i, err)
		}
	}
	for i := range r.Turns {
		for j := range r.Turns[i].Seats {
			s := &r.Turns[i].Seats[j]
			if s.Cut && r.Version != 1 {
				return nil, fmt.Errorf("turn %d, seat %d: \"cut\" is version 1's; version 2 cuts with answer_sha256", r.Turns[i].Turn, s.Seat)
			}
			if s.Fuel < 0 {
				return nil, fmt.Errorf("turn %d, seat %d: fuel is %d", r.Turns[i].Turn, s.Seat, s.Fuel)
			}
			if !s.plainAnswer() {
				if _, _, err := s.AnswerBytes(); err != nil {
					return nil, fmt.Errorf("turn %d, seat %d: %w", r.Turns[i].Turn, s.Seat, err)
				}
			}
		}
	}
	for i, l := range r.Logs {
		if l.Seat < 0 || l.Seat >= len(r.Bots) {
			return nil, fmt.Errorf("log of seat %d: the match has seats 0 to %d", l.Seat, len(r.Bots)-1)
		}
		if i > 0 && l.Seat <= r.Logs[i-1].Seat {
			return nil, fmt.Errorf("log of seat %d: out of order or twice", l.Seat)
		}
		if _, err := l.Bytes(); err != nil {
			return nil, fmt.Errorf("log of seat %d: %w", l.Seat, err)
		}
	}
	return r, nil
}

// checkVersion1 refuses a version 1 replay holding anything only version 2
// writes. Version 1 files predate all of these, so such a file is a version
// 2 replay relabelled, which would otherwise be checked from its actions only.
func (r *Replay) checkVersion1() error {
	only2 := func(field, where string) error {
		return fmt.Errorf("version 1 replay has %q (%s), which only version 2 writes: a version 2 replay relabelled as version 1 is refused", field, where)
	}
	if r.ResumedAfter != 0 {
		return only2("resumed_after", "the header")
	}
	if r.Logs != nil {
		return only2("logs", "the end")
	}
	for i, b := range r.Bots {
		if b.CostModel != 0 {
			return only2("cost_model", fmt.Sprintf("bot of seat %d", i))
		}
	}
	for _, t := range r.Turns {
		for _, s := range t.Seats {
			where := fmt.Sprintf("turn %d, seat %d", t.Turn, s.Seat)
			switch {
			case s.Failed:
				return only2("failed", where)
			case s.AnswerBase64 != "":
				return only2("answer_base64", where)
			case s.AnswerLen != 0:
				return only2("answer_len", where)
			case s.AnswerSHA256 != "":
				return only2("answer_sha256", where)
			}
		}
	}
	return nil
}

// checkIdentity refuses a cost model where no fuel is metered: only a wasm
// bot's figures follow one (wasm:, house:) (spec.Seats sets it).
func checkIdentity(b bot.Identity) error {
	if len(b.Name) > maxBotName {
		return fmt.Errorf("name is %d bytes, more than %d", len(b.Name), maxBotName)
	}
	if b.CostModel < 0 {
		return fmt.Errorf("cost_model is %d", b.CostModel)
	}
	if b.CostModel != 0 && !metered(b) {
		return fmt.Errorf("cost_model %d given for %q, which is not metered (only a wasm bot has a cost model)", b.CostModel, b.Spec)
	}
	return nil
}

// maxBotName bounds a bot's display name in a replay (a handle and a bot
// name are a few dozen bytes).
const maxBotName = 256

// metered says whether a seat's bot spends fuel (spec.Kind.Metered): a
// wasm module, given by its path or its sha256 or as a ladder entry of the
// house (house:NAME). A spec that does not parse names no metered bot.
func metered(b bot.Identity) bool {
	s, err := spec.Parse(b.Spec)
	return err == nil && s.Kind.Metered()
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
