// Code generated from the Arena repository's sdk/sdk.go by `go generate ./examples`. DO NOT EDIT.

// Package sdk is the Go side of a bot for the Arena platform: the line loop of
// the bot protocol (docs/bots.md) and the fuel gauge of wasm bots.
//
// A bot is a function from one observation to one action:
//
//	type Obs struct{ You int `json:"you"` /* the fields you use */ }
//	type Action struct{ /* the game's answer format */ }
//
//	func main() { sdk.Run(func(o Obs) Action { ... }) }
//
// Run decodes the observation with encoding/json, which is simple and costs
// fuel in proportion to the observation's size; a bot that reads a large
// observation takes it as JSON instead and picks out what it needs (see JSON).
//
// The same source builds for the platform (GOOS=wasip1 GOARCH=wasm) and as a
// native program for the CLI's exec: kind. The package knows no game: the
// observation and action types are the bot's own.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Fuel is the "fuel" field the platform adds to every observation sent to a
// wasm bot. Embed it in your observation type as `Fuel sdk.Fuel `json:"fuel"`.
// It is all zero for other kinds of bot.
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
// calls play and writes its action as one line. It returns when stdin closes
// (the match is over). An I/O failure is logged to stderr and exits with
// status 1, since a bot that cannot talk cannot play.
func Run[O, A any](play func(obs O) A) {
	if err := Loop(os.Stdin, os.Stdout, play); err != nil {
		fmt.Fprintln(os.Stderr, "sdk:", err)
		os.Exit(1)
	}
}

// Loop is Run on any reader and writer, for tests. An observation that does
// not decode into O is logged to stderr and answered with "{}", so the bot
// loses that turn (the game's default applies) but stays in step with the
// platform: one answer line per observation line, always. When O is JSON,
// play gets the line itself, undecoded.
func Loop[O, A any](in io.Reader, out io.Writer, play func(obs O) A) error {
	return LoopLines(in, out, func(line []byte) []byte {
		var obs O
		if raw, ok := any(&obs).(*JSON); ok {
			*raw = append(JSON(nil), line...) // the line's buffer is reused
		} else if err := json.Unmarshal(line, &obs); err != nil {
			fmt.Fprintf(os.Stderr, "sdk: bad observation: %v\n", err)
			return []byte("{}")
		}
		action, err := json.Marshal(play(obs))
		if err != nil {
			fmt.Fprintf(os.Stderr, "sdk: cannot encode the action: %v\n", err)
			return []byte("{}")
		}
		return action
	})
}

// LoopLines is the loop without JSON, for bots that parse observations
// themselves (encoding/json is a large part of a trivial Go bot's fuel).
// answer gets each line without its newline and returns the answer line
// without its newline; the line's bytes are only valid during the call.
func LoopLines(in io.Reader, out io.Writer, answer func(line []byte) []byte) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	for {
		line, err := readLine(r)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading an observation: %w", err)
		}
		// One Write per answer: the platform reads a line as soon as its
		// newline arrives, and a bot's answer should never be split.
		buf = append(append(buf[:0], answer(trimEOL(line))...), '\n')
		if _, werr := out.Write(buf); werr != nil {
			return fmt.Errorf("writing an answer: %w", werr)
		}
		if err != nil { // a last line without a newline has been answered
			return nil
		}
	}
}

// readLine reads up to and with the next newline. Unlike bufio.Scanner it
// has no line length limit: observations of large boards are long.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = r.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	return line, err
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
