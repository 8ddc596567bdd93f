package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
)

// Decoding a replay is most of what checking a cheap match's replay costs
// the server with encoding/json, which finds every field by reflection.
// decodeFast reads the layout Marshal writes (and any JSON close to it)
// directly into the Replay. It is a shortcut, not a second definition of
// the format: wherever encoding/json's answer takes more than the plain
// case (a key in another case or given twice, an escaped key, a number
// with a fraction or an exponent or too many digits, a string with
// invalid UTF-8 or a surrogate escape, deep nesting, anything malformed)
// it gives up and decodeJSON decides. So what it returns is, field for
// field, what encoding/json returns (FuzzDecodeFastIsEncodingJSON), and
// every refusal, with its message, is encoding/json's.

// decode reads a replay's JSON as Parse does, before Parse's checks.
func decode(data []byte) (*Replay, error) {
	if r, ok := decodeFast(data); ok {
		return r, nil
	}
	return decodeJSON(data)
}

// decodeJSON is the reference decoding: encoding/json, no unknown fields,
// nothing after the replay but white space.
func decodeJSON(data []byte) (*Replay, error) {
	var r Replay
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a replay: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a replay: data after the replay's closing brace")
	}
	return &r, nil
}

// decodeFast decodes data as decodeJSON would, or reports false when it
// cannot be sure it would (then decodeJSON must decide).
func decodeFast(data []byte) (*Replay, bool) {
	d := decoder{data: data, text: string(data), raw: bytes.Clone(data)}
	var r Replay
	if !d.replay(&r) {
		return nil, false
	}
	d.ws()
	if d.i != len(d.data) {
		return nil, false
	}
	return &r, true
}

// decoder walks data. Every method returns false to give up.
type decoder struct {
	data []byte
	// text is data as a string and raw a copy of it: a string without
	// escapes is cut from text, a raw value (an action) from raw, so
	// neither costs an allocation of its own. Their ranges never overlap.
	text string
	raw  []byte
	i    int
	buf  []byte // scratch for unescaping
	// seatsRead is scratch for a turn's seats, slab what is left of the
	// last block of seats allocated, of slabSize seats.
	seatsRead []Seat
	slab      []Seat
	slabSize  int
}

// maxRawDepth bounds the nesting of a raw value decodeFast walks
// (encoding/json's own bound is 10,000; deeper ones are its to judge).
const maxRawDepth = 256

func (d *decoder) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (d *decoder) peek() byte {
	d.ws()
	if d.i < len(d.data) {
		return d.data[d.i]
	}
	return 0
}

// literal consumes word (true, false, null) if it comes next.
func (d *decoder) literal(word string) bool {
	if d.peek() == word[0] && len(d.data)-d.i >= len(word) && string(d.data[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// null consumes a null: encoding/json leaves the value as it is, which
// for every value decodeFast fills is its zero value.
func (d *decoder) null() bool { return d.literal("null") }

// open consumes c, the start of an object or an array.
func (d *decoder) open(c byte) bool {
	if d.peek() != c {
		return false
	}
	d.i++
	return true
}

// more reports whether an object or array (ended by end) has an n-th
// member, consuming the comma before it or the end after the last.
func (d *decoder) more(n int, end byte) (more, ok bool) {
	c := d.peek()
	switch {
	case c == end:
		d.i++
		return false, true
	case n == 0:
		return true, true
	case c == ',':
		d.i++
		return true, true
	}
	return false, false
}

// key reads an object's key and its colon. A key with an escape gives
// up: encoding/json would unescape it before matching.
func (d *decoder) key() ([]byte, bool) {
	if d.peek() != '"' {
		return nil, false
	}
	start := d.i + 1
	end := bytes.IndexByte(d.data[start:], '"')
	if end < 0 {
		return nil, false
	}
	k := d.data[start : start+end]
	if bytes.IndexByte(k, '\\') >= 0 {
		return nil, false
	}
	d.i = start + end + 1
	if d.peek() != ':' {
		return nil, false
	}
	d.i++
	return k, true
}

// fields reads an object, calling field for each key at its value. field
// returns the field's bit, distinct for each field of T, or 0 for a key it
// does not know or a value it gives up on. A field given twice gives up
// (encoding/json would decode the second into the first).
func fields[T any](d *decoder, v *T, field func(d *decoder, v *T, key []byte) uint32) bool {
	if d.null() {
		return true
	}
	if !d.open('{') {
		return false
	}
	var seen uint32
	for n := 0; ; n++ {
		more, ok := d.more(n, '}')
		if !ok {
			return false
		}
		if !more {
			return true
		}
		k, ok := d.key()
		if !ok {
			return false
		}
		bit := field(d, v, k)
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
}

// got is a field's bit when its value was read, 0 otherwise.
func got(bit uint32, ok bool) uint32 {
	if !ok {
		return 0
	}
	return bit
}

// array reads an array into a new slice, as encoding/json does: null
// leaves it nil, [] makes it empty.
func array[T any](d *decoder, s *[]T, elem func(*decoder, *T) bool) bool {
	if d.null() {
		return true
	}
	if !d.open('[') {
		return false
	}
	out := []T{}
	for n := 0; ; n++ {
		more, ok := d.more(n, ']')
		if !ok {
			return false
		}
		if !more {
			*s = out
			return true
		}
		var zero T
		out = append(out, zero)
		if !elem(d, &out[len(out)-1]) {
			return false
		}
	}
}

// object reads an object with string keys into a new map, as encoding/json
// does: a key given twice keeps its last value.
func object[M ~map[K]V, K ~string, V any](d *decoder, m *M, elem func(*decoder, *V) bool) bool {
	if d.null() {
		return true
	}
	if !d.open('{') {
		return false
	}
	out := M{}
	for n := 0; ; n++ {
		more, ok := d.more(n, '}')
		if !ok {
			return false
		}
		if !more {
			*m = out
			return true
		}
		var k string
		if !d.str(&k) || d.peek() != ':' {
			return false
		}
		d.i++
		var v V
		if !elem(d, &v) {
			return false
		}
		out[K(k)] = v
	}
}

func (d *decoder) replay(r *Replay) bool {
	return fields(d, r, func(d *decoder, r *Replay, k []byte) uint32 {
		switch string(k) {
		case "format":
			return got(1<<0, d.str(&r.Format))
		case "version":
			return got(1<<1, d.int(&r.Version))
		case "game":
			return got(1<<2, d.str(&r.Game))
		case "params":
			return got(1<<3, object(d, &r.Params, (*decoder).str))
		case "seed":
			return got(1<<4, d.uint64(&r.Seed))
		case "bots":
			return got(1<<5, array(d, &r.Bots, (*decoder).identity))
		case "initial_hash":
			return got(1<<6, d.str(&r.InitialHash))
		case "resumed_after":
			return got(1<<7, d.int(&r.ResumedAfter))
		case "turns":
			return got(1<<8, array(d, &r.Turns, (*decoder).turn))
		case "result":
			return got(1<<9, d.result(&r.Result))
		case "logs":
			return got(1<<10, array(d, &r.Logs, (*decoder).log))
		}
		return 0
	})
}

func (d *decoder) identity(b *bot.Identity) bool {
	return fields(d, b, func(d *decoder, b *bot.Identity, k []byte) uint32 {
		switch string(k) {
		case "spec":
			return got(1<<0, d.str(&b.Spec))
		case "sha256":
			return got(1<<1, d.str(&b.SHA256))
		case "cost_model":
			return got(1<<2, d.int(&b.CostModel))
		case "name":
			return got(1<<3, d.str(&b.Name))
		}
		return 0
	})
}

func (d *decoder) turn(t *Turn) bool {
	return fields(d, t, func(d *decoder, t *Turn, k []byte) uint32 {
		switch string(k) {
		case "turn":
			return got(1<<0, d.int(&t.Turn))
		case "seats":
			return got(1<<1, d.seats(&t.Seats))
		case "hash":
			return got(1<<2, d.str(&t.Hash))
		}
		return 0
	})
}

// seats reads a turn's seats, as array does, into a share of a slab
// that holds the seats of many turns: a turn's one or two seats would
// otherwise cost an allocation or two of their own.
func (d *decoder) seats(out *[]Seat) bool {
	if d.null() {
		return true
	}
	if !d.open('[') {
		return false
	}
	read := d.seatsRead[:0]
	for n := 0; ; n++ {
		more, ok := d.more(n, ']')
		if !ok {
			return false
		}
		if !more {
			break
		}
		read = append(read, Seat{})
		if !d.seat(&read[len(read)-1]) {
			return false
		}
	}
	d.seatsRead = read
	n := len(read)
	if n == 0 {
		*out = []Seat{}
		return true
	}
	if len(d.slab) < n {
		d.slabSize = min(max(2*d.slabSize, 16), 4096)
		d.slab = make([]Seat, max(n, d.slabSize))
	}
	*out = d.slab[:n:n]
	copy(*out, read)
	d.slab = d.slab[n:]
	return true
}

func (d *decoder) seat(s *Seat) bool {
	return fields(d, s, func(d *decoder, s *Seat, k []byte) uint32 {
		switch string(k) {
		case "seat":
			return got(1<<0, d.int(&s.Seat))
		case "status":
			return got(1<<1, d.status(&s.Status))
		case "failed":
			return got(1<<2, d.bool(&s.Failed))
		case "answer":
			return got(1<<3, d.str(&s.Answer))
		case "answer_base64":
			return got(1<<4, d.str(&s.AnswerBase64))
		case "answer_len":
			return got(1<<5, d.int(&s.AnswerLen))
		case "answer_sha256":
			return got(1<<6, d.str(&s.AnswerSHA256))
		case "cut":
			return got(1<<7, d.bool(&s.Cut))
		case "action":
			return got(1<<8, d.rawValue(&s.Action))
		case "reason":
			return got(1<<9, d.str(&s.Reason))
		case "fuel":
			return got(1<<10, d.int64(&s.Fuel))
		}
		return 0
	})
}

func (d *decoder) result(r *Result) bool {
	return fields(d, r, func(d *decoder, r *Result, k []byte) uint32 {
		switch string(k) {
		case "turns":
			return got(1<<0, d.int(&r.Turns))
		case "scores":
			return got(1<<1, array(d, &r.Scores, (*decoder).int64))
		case "placement":
			return got(1<<2, array(d, &r.Placement, (*decoder).int))
		case "statuses":
			return got(1<<3, array(d, &r.Statuses, statusCounts))
		}
		return 0
	})
}

func statusCounts(d *decoder, m *map[game.Status]int) bool {
	return object(d, m, (*decoder).int)
}

func (d *decoder) log(l *Log) bool {
	return fields(d, l, func(d *decoder, l *Log, k []byte) uint32 {
		switch string(k) {
		case "seat":
			return got(1<<0, d.int(&l.Seat))
		case "text":
			return got(1<<1, d.str(&l.Text))
		case "base64":
			return got(1<<2, d.str(&l.Base64))
		}
		return 0
	})
}

func (d *decoder) status(s *game.Status) bool {
	return d.str((*string)(s))
}

func (d *decoder) bool(b *bool) bool {
	switch {
	case d.null():
	case d.literal("true"):
		*b = true
	case d.literal("false"):
		*b = false
	default:
		return false
	}
	return true
}

// integer reads an integer of at most maxDigits digits (so that it cannot
// overflow), and gives up on a fraction or an exponent, which encoding/json
// refuses for an integer field (or, for -0.0, does not: its call).
func (d *decoder) integer(signed bool, maxDigits int) (neg bool, v uint64, ok bool) {
	if d.peek() == '-' && signed {
		neg = true
		d.i++
	}
	start := d.i
	for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
		v = v*10 + uint64(d.data[d.i]-'0')
		d.i++
	}
	n := d.i - start
	if n == 0 || n > maxDigits || (n > 1 && d.data[start] == '0') {
		return false, 0, false
	}
	if d.i < len(d.data) {
		switch d.data[d.i] {
		case '.', 'e', 'E':
			return false, 0, false
		}
	}
	return neg, v, true
}

func (d *decoder) int64(n *int64) bool {
	if d.null() {
		return true
	}
	neg, v, ok := d.integer(true, 18) // 18 digits fit in an int64
	if !ok {
		return false
	}
	*n = int64(v)
	if neg {
		*n = -*n
	}
	return true
}

func (d *decoder) int(n *int) bool {
	var v int64
	if !d.int64(&v) || int64(int(v)) != v {
		return false
	}
	*n = int(v)
	return true
}

func (d *decoder) uint64(n *uint64) bool {
	if d.null() {
		return true
	}
	_, v, ok := d.integer(false, 19) // 19 digits fit in a uint64
	*n = v
	return ok
}

// str reads a string, or leaves s on null.
func (d *decoder) str(s *string) bool {
	if d.null() {
		return true
	}
	if d.peek() != '"' {
		return false
	}
	start := d.i + 1
	high := false
	for j := start; j < len(d.data); j++ {
		switch c := d.data[j]; {
		case c == '"':
			if high && !utf8.Valid(d.data[start:j]) {
				return false // encoding/json replaces invalid bytes
			}
			*s, d.i = d.text[start:j], j+1
			return true
		case c == '\\':
			return d.unescape(s, start, j)
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			high = true
		}
	}
	return false
}

// unescape finishes reading a string that starts at start and has its
// first escape at j.
func (d *decoder) unescape(s *string, start, j int) bool {
	b := append(d.buf[:0], d.data[start:j]...)
	for j < len(d.data) {
		c := d.data[j]
		switch {
		case c == '"':
			d.buf = b
			if !utf8.Valid(b) {
				return false
			}
			*s, d.i = string(b), j+1
			return true
		case c < 0x20:
			return false
		case c != '\\':
			b = append(b, c)
			j++
			continue
		}
		if j+1 >= len(d.data) {
			return false
		}
		switch e := d.data[j+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(d.data[j+2:])
			if !ok || utf16.IsSurrogate(r) {
				return false // a pair, or encoding/json's replacement
			}
			b = utf8.AppendRune(b, r)
			j += 4
		default:
			return false
		}
		j += 2
	}
	return false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// rawValue reads any JSON value as its exact bytes, as json.RawMessage
// keeps it (null as "null").
func (d *decoder) rawValue(m *json.RawMessage) bool {
	d.ws()
	start := d.i
	if !d.skip(0) {
		return false
	}
	*m = d.raw[start:d.i:d.i]
	return true
}

// skip walks one JSON value, checking its syntax as encoding/json's
// scanner does.
func (d *decoder) skip(depth int) bool {
	if depth > maxRawDepth {
		return false
	}
	switch d.peek() {
	case '{':
		d.i++
		for n := 0; ; n++ {
			more, ok := d.more(n, '}')
			if !ok {
				return false
			}
			if !more {
				return true
			}
			if d.peek() != '"' || !d.skipString() || d.peek() != ':' {
				return false
			}
			d.i++
			if !d.skip(depth + 1) {
				return false
			}
		}
	case '[':
		d.i++
		for n := 0; ; n++ {
			more, ok := d.more(n, ']')
			if !ok {
				return false
			}
			if !more {
				return true
			}
			if !d.skip(depth + 1) {
				return false
			}
		}
	case '"':
		return d.skipString()
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	return d.skipNumber()
}

// skipString walks a string at d.i: its bytes are kept raw, so only its
// escapes and control characters are checked, as the scanner does.
func (d *decoder) skipString() bool {
	for j := d.i + 1; j < len(d.data); j++ {
		switch c := d.data[j]; {
		case c == '"':
			d.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if j+1 >= len(d.data) {
				return false
			}
			switch d.data[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if _, ok := hex4(d.data[j+2:]); !ok {
					return false
				}
				j += 5
			default:
				return false
			}
		}
	}
	return false
}

// skipNumber walks a number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) skipNumber() bool {
	digits := func() int {
		start := d.i
		for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
			d.i++
		}
		return d.i - start
	}
	if d.i < len(d.data) && d.data[d.i] == '-' {
		d.i++
	}
	start := d.i
	if n := digits(); n == 0 || (n > 1 && d.data[start] == '0') {
		return false
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return false
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}
