// Code generated from the Arena repository's sdk/sdk.go by `go generate ./internal/kits`. DO NOT EDIT.

// Package sdk is the Go side of a bot for the Arena platform: the line loop of
// the bot protocol (docs/bots.md), a JSON reader made for observations, and
// the fuel gauge of wasm bots.
//
// A bot is a function from one observation to one answer line:
//
//	func main() {
//		sdk.Run(func(obs sdk.JSON, answer []byte) []byte {
//			you := obs.Get("you").Int()
//			return append(answer, `{"move":1}`...)
//		})
//	}
//
// Everything here is written to cost a wasm bot little fuel: Run reuses its
// buffers from turn to turn, so a turn allocates nothing, and the package
// imports neither encoding/json (reflection costs a Go bot about 600 fuel a
// byte of observation) nor fmt, os or syscall, whose start-up a bot pays
// for too.
// A bot that prefers to decode into its own structs can call
// json.Unmarshal(obs, &o) itself, and pays for it.
//
// The same source builds for the platform (GOOS=wasip1 GOARCH=wasm) and as a
// native program for the CLI's exec: kind. The package knows no game.
package main

import (
	"errors"
	"io"
	"unsafe"
)

// Fuel is the "fuel" field the platform adds to every observation sent to a
// wasm bot: obs.Get("fuel").Get("left").Int() is the fuel this answer may
// spend. It is absent for other kinds of bot. (The struct is for bots that
// decode observations with encoding/json: embed it as `Fuel sdk.Fuel
// `json:"fuel"`.)
type Fuel struct {
	Left    int64 `json:"left"`     // fuel available for this answer
	PerTurn int64 `json:"per_turn"` // added at every observation
	Cap     int64 `json:"cap"`      // the tank never holds more
}

// FuelLeft returns the fuel left in the tank right now, read live from the
// host. It returns -1 when the bot is not running as a wasm bot on the
// platform (a native build), so a bot can tell "unmetered" from "empty".
func FuelLeft() int64 { return fuelLeft() }

// Run plays a whole match on stdin and stdout: for each observation line it
// calls play with the line and an empty buffer, and writes the answer play
// appends to the buffer (without a newline: Run adds it) as one line. It
// returns when stdin closes (the match is over). An I/O failure is logged to
// stderr and exits with status 1, since a bot that cannot talk cannot play.
//
// The observation's bytes and the answer's buffer are reused from turn to
// turn: keep neither beyond the call (copy what you keep).
func Run(play func(obs JSON, answer []byte) []byte) {
	var answer []byte
	err := loopLines(stdin{}, stdout{}, runBuffer[:0], func(line []byte) []byte {
		answer = play(JSON(line), answer[:0])
		return answer
	})
	if err != nil {
		fail("sdk: " + err.Error())
	}
}

// runBuffer is Run's first line buffer: a static one costs nothing, where
// allocating one before the first read of stdin costs a wasm bot's start-up
// some 50,000 fuel (a heap span, at the start-up prices). A longer line
// moves to the heap.
var runBuffer [4 << 10]byte

// LoopLines is the loop on any reader and writer: answer gets each line
// without its newline (and a '\r' before it) and returns the answer line
// without its newline. The line's bytes are only valid during the call.
// Lines have no length limit: observations of large boards are long.
func LoopLines(in io.Reader, out io.Writer, answer func(line []byte) []byte) error {
	return loopLines(in, out, make([]byte, 0, 4<<10), answer)
}

// loopLines is LoopLines reading into buf first.
func loopLines(in io.Reader, out io.Writer, buf []byte, answer func(line []byte) []byte) error {
	r := lineReader{in: in, buf: buf}
	var reply []byte
	for {
		line, err := r.next()
		if line == nil {
			if err == io.EOF {
				return nil
			}
			return errors.New("reading an observation: " + err.Error())
		}
		// One Write per answer: the platform reads a line as soon as its
		// newline arrives, and a bot's answer should never be split.
		reply = append(append(reply[:0], answer(trimEOL(line))...), '\n')
		if _, werr := out.Write(reply); werr != nil {
			return errors.New("writing an answer: " + werr.Error())
		}
	}
}

// lineReader splits a stream into lines in a buffer of its own that grows
// to the longest line, so a line is read without copying it.
type lineReader struct {
	in    io.Reader
	buf   []byte // buf[start:] is read and not yet handed out
	start int
	err   error // the reader's error, once it has returned one
}

// next returns the next line with its newline (the last line may lack it),
// or nil and the error that ended the stream (io.EOF at its end).
func (r *lineReader) next() ([]byte, error) {
	for scanned := 0; ; {
		rest := r.buf[r.start:]
		if i := indexNewline(rest[scanned:]); i >= 0 {
			line := rest[:scanned+i+1]
			r.start += len(line)
			return line, nil
		}
		scanned = len(rest)
		if r.err != nil {
			if len(rest) > 0 {
				r.start = len(r.buf)
				return rest, nil
			}
			return nil, r.err
		}
		if r.start > 0 { // make room at the end by moving the rest to the front
			r.buf = r.buf[:copy(r.buf, rest)]
			r.start = 0
		}
		if len(r.buf) == cap(r.buf) {
			r.buf = append(r.buf, 0)[:len(r.buf)]
		}
		n, err := r.in.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+n]
		if err != nil {
			r.err = err
		} else if n == 0 {
			r.err = io.ErrNoProgress
		}
	}
}

// indexNewline is bytes.IndexByte(b, '\n'), eight bytes at a time. (Package
// bytes would bring package unicode, whose start-up costs a wasm bot
// 140,000 fuel.)
func indexNewline(b []byte) int {
	const ones, highs, newlines = 0x0101010101010101, 0x8080808080808080, 0x0a0a0a0a0a0a0a0a
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := *(*uint64)(unsafe.Pointer(&b[i])) ^ newlines // a zero byte where b has a newline
		if (w-ones)&^w&highs != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}

// trimEOL cuts the newline and a '\r' before it.
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
