package jobs

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// A result travels as its JSON without the replay, a newline, then the
// replay's bytes as they are: inside the JSON the replay would be base64
// (a third larger) and the server's decoder would scan every byte of it
// twice, which was the largest part of recording a Grid Royale match
// (docs/performance.md, scale-out). json.Marshal never writes a newline
// outside a string, and escapes it inside one, so the first newline ends
// the JSON. A message with no newline is a whole Result in JSON, as older
// workers send it.

// EncodeResult is a result as PublishResult sends it.
func EncodeResult(r Result) ([]byte, error) {
	replay := r.Replay
	r.Replay = nil
	head, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(head)+1+len(replay))
	out = append(append(append(out, head...), '\n'), replay...)
	return out, nil
}

// DecodeResult reads a result message (EncodeResult, or a Result in JSON).
// The replay refers to data's bytes.
func DecodeResult(data []byte) (Result, error) {
	var r Result
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		err := json.Unmarshal(data, &r)
		return r, err
	}
	if err := json.Unmarshal(data[:i], &r); err != nil {
		return Result{}, err
	}
	if len(r.Replay) > 0 {
		return Result{}, errors.New("jobs: result carries a replay in its JSON and after it")
	}
	if rest := data[i+1:]; len(rest) > 0 {
		r.Replay = rest
	}
	return r, nil
}

// The turns of a running match go to its live subject in batches (a Grid
// Royale match of house bots plays 400 turns in a tenth of a second: one
// message per turn was most of the NATS traffic and of the server's work
// per match). A batch is the byte turnsMagic, then for every turn its
// number and its length as uvarints and its JSON. A message that starts
// with '{' is one turn's JSON, as older workers send it.
const turnsMagic = 'T'

// LiveTurn is one turn of a live batch: its number (1 for the first) and
// its JSON (replay.Turn).
type LiveTurn struct {
	N    int
	JSON []byte
}

// AppendTurn adds a turn to a batch; buf empty starts one.
func AppendTurn(buf []byte, n int, turn []byte) []byte {
	if len(buf) == 0 {
		buf = append(buf, turnsMagic)
	}
	buf = binary.AppendUvarint(buf, uint64(n))
	buf = binary.AppendUvarint(buf, uint64(len(turn)))
	return append(buf, turn...)
}

// DecodeTurns reads a live message: a batch (AppendTurn) or one turn's
// JSON. The turns refer to data's bytes.
func DecodeTurns(data []byte) ([]LiveTurn, error) {
	if len(data) == 0 {
		return nil, errors.New("jobs: empty live message")
	}
	if data[0] == '{' {
		var t struct {
			Turn int `json:"turn"`
		}
		if err := json.Unmarshal(data, &t); err != nil {
			return nil, err
		}
		if bytes.ContainsAny(data, "\r\n") {
			return nil, errors.New("jobs: a line break in a live turn")
		}
		return []LiveTurn{{N: t.Turn, JSON: data}}, nil
	}
	if data[0] != turnsMagic {
		return nil, fmt.Errorf("jobs: live message starts with %q", data[0])
	}
	var out []LiveTurn
	for rest := data[1:]; len(rest) > 0; {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > 1<<31 || k != uvarintLen(n) {
			return nil, errors.New("jobs: live batch: bad turn number")
		}
		rest = rest[k:]
		size, k := binary.Uvarint(rest)
		if k <= 0 || size > uint64(len(rest)-k) || k != uvarintLen(size) {
			return nil, errors.New("jobs: live batch: bad turn length")
		}
		rest = rest[k:]
		if bytes.ContainsAny(rest[:size], "\r\n") {
			// json.Marshal writes no line break, and the server relays each
			// turn as one line of a server-sent event: one would end it.
			return nil, errors.New("jobs: live batch: a line break in a turn")
		}
		out = append(out, LiveTurn{N: int(n), JSON: rest[:size:size]})
		rest = rest[size:]
	}
	return out, nil
}

// uvarintLen is the length of n's shortest encoding: a batch has one
// encoding only.
func uvarintLen(n uint64) int {
	var b [binary.MaxVarintLen64]byte
	return len(binary.AppendUvarint(b[:0], n))
}
