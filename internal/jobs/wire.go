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
// per match). A batch is the byte liveMagic, the length of the lease the
// worker runs the match under (its JSON) as a uvarint, that JSON, then for
// every turn its number and its length as uvarints and its JSON. The
// server relays a batch only under the match's current lease (a worker's
// credentials may publish on every live subject): a worker shows turns of
// the matches it holds only.
const liveMagic = 'L'

// Bounds of one live batch. A worker flushes a batch before it would pass
// MaxLiveBytes or MaxLiveTurns (a turn bigger than MaxLiveBytes goes
// alone); the server refuses a batch over MaxLiveBatch bytes (a turn that
// big, which no game's turn comes near, is not sent: a view of its match
// shows the board when the match ends), with more than MaxLiveTurns turns
// or with a longer lease than any the server signs.
const (
	MaxLiveBytes = 256 << 10
	MaxLiveBatch = 4 << 20
	MaxLiveTurns = 1024
	maxLiveLease = 16 << 10 // a lease names at most 64 modules (take)
)

// LiveTurn is one turn of a live batch: its number (1 for the first) and
// its JSON (replay.Turn).
type LiveTurn struct {
	N    int
	JSON []byte
}

// LiveHeader starts every batch of turns of the match held under le
// (AppendTurn adds the turns).
func LiveHeader(le Lease) ([]byte, error) {
	data, err := json.Marshal(le)
	if err != nil {
		return nil, err
	}
	out := binary.AppendUvarint([]byte{liveMagic}, uint64(len(data)))
	return append(out, data...), nil
}

// AppendTurn adds a turn to a batch that starts with a LiveHeader.
func AppendTurn(buf []byte, n int, turn []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(n))
	buf = binary.AppendUvarint(buf, uint64(len(turn)))
	return append(buf, turn...)
}

// DecodeTurns reads a live batch: the lease it was sent under and its
// turns, which refer to data's bytes. A batch without a lease (as workers
// before leases on live turns send) is refused; so is one whose lease
// does not decode, or over the bounds above.
func DecodeTurns(data []byte) (*Lease, []LiveTurn, error) {
	if len(data) == 0 {
		return nil, nil, errors.New("jobs: empty live message")
	}
	if len(data) > MaxLiveBatch {
		return nil, nil, fmt.Errorf("jobs: live batch of %d bytes, over %d", len(data), MaxLiveBatch)
	}
	if data[0] != liveMagic {
		return nil, nil, fmt.Errorf("jobs: live message starts with %q, not a batch with a lease", data[0])
	}
	rest := data[1:]
	size, k := binary.Uvarint(rest)
	if k <= 0 || size > maxLiveLease || size > uint64(len(rest)-k) || k != uvarintLen(size) {
		return nil, nil, errors.New("jobs: live batch: bad lease length")
	}
	var le Lease
	if err := json.Unmarshal(rest[k:k+int(size)], &le); err != nil {
		return nil, nil, fmt.Errorf("jobs: live batch: lease: %w", err)
	}
	var out []LiveTurn
	for rest = rest[k+int(size):]; len(rest) > 0; {
		if len(out) == MaxLiveTurns {
			return nil, nil, fmt.Errorf("jobs: live batch: more than %d turns", MaxLiveTurns)
		}
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > 1<<31 || k != uvarintLen(n) {
			return nil, nil, errors.New("jobs: live batch: bad turn number")
		}
		rest = rest[k:]
		size, k := binary.Uvarint(rest)
		if k <= 0 || size > uint64(len(rest)-k) || k != uvarintLen(size) {
			return nil, nil, errors.New("jobs: live batch: bad turn length")
		}
		rest = rest[k:]
		if bytes.IndexByte(rest[:size], '\n') >= 0 || bytes.IndexByte(rest[:size], '\r') >= 0 {
			// json.Marshal writes no line break, and the server relays each
			// turn as one line of a server-sent event: one would end it.
			return nil, nil, errors.New("jobs: live batch: a line break in a turn")
		}
		out = append(out, LiveTurn{N: int(n), JSON: rest[:size:size]})
		rest = rest[size:]
	}
	return &le, out, nil
}

// uvarintLen is the length of n's shortest encoding: a batch has one
// encoding only.
func uvarintLen(n uint64) int {
	var b [binary.MaxVarintLen64]byte
	return len(binary.AppendUvarint(b[:0], n))
}
