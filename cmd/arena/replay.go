package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/hashing"
	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox/meter"
	"golang.org/x/term"
)

type verifyCmd struct {
	File string `arg:"" type:"existingfile" help:"Replay file."`
}

func (c *verifyCmd) Run() error {
	r, g, err := loadReplay(c.File)
	if err != nil {
		return err
	}
	if err := replay.Verify(r, g); err != nil {
		fmt.Fprintf(os.Stderr, "%s: FAILED: %s\n", c.File, escapeControls([]byte(err.Error())))
		return exitError{1}
	}
	fmt.Printf("%s: ok, %d turns: every status, action and state hash recomputed from the answers, and the result, match\n", c.File, len(r.Turns))
	// Say plainly what a pass does not cover, so no one reads more into it.
	fmt.Println("not checked by verify (arena replay rerun checks these against the bots):")
	for _, line := range r.Unchecked() {
		fmt.Printf("  - %s\n", line)
	}
	return nil
}

// loadReplay reads a replay and finds its game.
func loadReplay(path string) (*replay.Replay, game.Game, error) {
	r, err := replay.Load(path)
	if err != nil {
		return nil, nil, err
	}
	g, err := games.Lookup(r.Game)
	if err != nil {
		return nil, nil, err
	}
	return r, g, nil
}

type rerunCmd struct {
	File        string `arg:"" type:"existingfile" help:"Replay file."`
	AllowNative bool   `help:"Also run the exec: and potm: programs the replay names, each printed first. A replay is a file from anyone: only for one you trust."`
}

func (c *rerunCmd) Run() error {
	r, g, err := loadReplay(c.File)
	if err != nil {
		return err
	}
	// Every seat is found and checked before any bot starts.
	specs := make([]spec.Spec, len(r.Bots))
	for i, id := range r.Bots {
		if specs[i], err = locate(id, filepath.Dir(c.File), c.AllowNative); err != nil {
			return fmt.Errorf("seat %d (%s): %s", i, strconv.Quote(id.Spec), escapeControls([]byte(err.Error())))
		}
	}
	for i, s := range specs {
		if s.Kind.Native() {
			fmt.Fprintf(os.Stderr, "seat %d runs the native program %s (sha256 %s)\n", i, strconv.Quote(s.String()), s.SHA256)
		}
	}
	if err := (match.Runner{}).Rerun(context.Background(), r, g, local.Seats(specs)); err != nil {
		fmt.Fprintf(os.Stderr, "%s: FAILED: %s\n", c.File, escapeControls([]byte(err.Error())))
		return exitError{1}
	}
	fmt.Printf("%s: ok, %d turns re-run, every answer, status, fuel figure and hash match\n", c.File, len(r.Turns))
	return nil
}

// locate finds a recorded bot and returns the spec that opens it. A replay
// is data from anyone, so nothing it names runs unless its bytes are the
// recorded ones: a wasm module is a regular file of at most the module size
// limit with the recorded sha256, found at its recorded path, else beside the
// replay, else among the house modules the binary embeds; a native program
// (exec:, potm:) is refused unless allowNative, and then it too must be a
// regular file with the recorded sha256. A house bot compiled into the binary
// has no file and needs no hash; any other seat without one is refused. The
// spec returned carries the recorded sha256, so the bot opened is checked
// again against it (spec.Seats).
func locate(id bot.Identity, dir string, allowNative bool) (spec.Spec, error) {
	s, err := spec.Parse(id.Spec)
	if err != nil {
		return spec.Spec{}, err
	}
	if s.Kind == spec.Builtin {
		return s, nil
	}
	if !validSHA256(id.SHA256) {
		return spec.Spec{}, errors.New("the replay records no valid sha256 for this bot, so nothing can show which program it is; refused")
	}
	s.SHA256 = id.SHA256
	switch {
	case s.Kind == spec.House:
		// A ladder entry of the house: the module the binary embeds with
		// the recorded hash, whatever entry the name is now.
		p, err := houseModule(id.SHA256)
		if err != nil {
			return spec.Spec{}, err
		}
		if p == "" {
			return spec.Spec{}, fmt.Errorf("no house module with sha256 %s in this build of arena", id.SHA256)
		}
		return spec.Spec{Kind: spec.Wasm, Path: p, SHA256: id.SHA256}, nil
	case s.Kind != spec.Wasm && !s.Kind.Native():
		return spec.Spec{}, fmt.Errorf("a %s bot cannot be re-run from a replay", s.Kind)
	case s.Kind.Native() && !allowNative:
		return spec.Spec{}, errors.New("a native program: a replay is data, and rerun starts no program a replay names; rerun with --allow-native to run it, if you trust this replay")
	case s.Kind == spec.Exec:
		// A command line: its program (the first word, looked up as when it
		// was recorded) must have the recorded hash.
		words := strings.Fields(s.Command)
		if len(words) == 0 {
			return spec.Spec{}, errors.New("an empty command")
		}
		path, err := exec.LookPath(words[0])
		if err != nil {
			return spec.Spec{}, err
		}
		if sum, err := hashing.RegularFileSHA256(path, maxNativeSize); err != nil || sum != id.SHA256 {
			return spec.Spec{}, fmt.Errorf("its program %s is not the recorded one (sha256 %s)", path, id.SHA256)
		}
		return s, nil
	}
	limit := int64(meter.MaxModuleSize)
	if s.Kind.Native() {
		limit = maxNativeSize
	}
	sum, err := hashing.RegularFileSHA256(s.Path, limit)
	if err == nil && sum == id.SHA256 {
		return s, nil
	}
	why := "" // why the recorded path was passed over, when it exists
	switch {
	case err == nil:
		why = fmt.Sprintf(" (%s has another sha256)", s.Path)
	case !errors.Is(err, fs.ErrNotExist):
		why = fmt.Sprintf(" (%v)", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if sum, err := hashing.RegularFileSHA256(p, limit); err == nil && sum == id.SHA256 {
			s.Path = p
			return s, nil
		}
	}
	if s.Kind == spec.Wasm {
		if p, err := houseModule(id.SHA256); err != nil {
			return spec.Spec{}, err
		} else if p != "" {
			s.Path = p
			return s, nil
		}
	}
	return spec.Spec{}, fmt.Errorf("no file with sha256 %s at its path%s nor next to the replay: copy that file, under any name, into %s", id.SHA256, why, dir)
}

// maxNativeSize bounds the native programs rerun --allow-native hashes.
const maxNativeSize = 1 << 30

// validSHA256 reports whether s is a sha256 as replays write it: 64
// lower-case hex digits.
func validSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// houseModule finds a module of the house's ladder with the given hash
// among those this binary embeds (a replay downloaded from a server of the
// same build names them by hash only) and writes it to the user's cache,
// returning its path; "" when none has that hash.
func houseModule(sha string) (string, error) {
	bots, err := housebots.Ladder()
	if err != nil {
		return "", err
	}
	for _, b := range bots {
		if b.SHA256 == sha {
			return housebots.CachedPath(b)
		}
	}
	return "", nil
}

// resumeFrom loads the replay `arena match --from FILE --turn N` plays on
// from; the new match has its seed and parameters.
func resumeFrom(path string, turn int, gameID string, bots int, params bool) (*replay.Replay, error) {
	r, err := replay.Load(path)
	if err != nil {
		return nil, err
	}
	switch {
	case r.Game != gameID:
		return nil, fmt.Errorf("--from: %s is a replay of %s, not %s", path, r.Game, gameID)
	case params:
		return nil, fmt.Errorf("--from: the recorded match's parameters apply; --param cannot change them")
	case len(r.Bots) != bots:
		return nil, fmt.Errorf("--from: the recorded match has %d seats, %d bots given", len(r.Bots), bots)
	case turn < 0 || turn >= len(r.Turns):
		return nil, fmt.Errorf("--turn %d: the recorded match can be played on after turns 0 to %d", turn, len(r.Turns)-1)
	}
	return r, nil
}

type showCmd struct {
	File  string `arg:"" type:"existingfile" help:"Replay file."`
	Turn  int    `default:"-1" help:"Draw the board after this many turns (0: the start; default: the end)."`
	Color string `default:"auto" enum:"auto,always,never" help:"Colour the board: auto, always or never."`
}

func (c *showCmd) Run() error {
	r, g, err := loadReplay(c.File)
	if err != nil {
		return err
	}
	n := c.Turn
	if n < 0 {
		n = len(r.Turns)
	}
	st, err := r.StateAfter(g, n)
	if err != nil {
		return fmt.Errorf("%s", escapeControls([]byte(err.Error()))) // it may quote the file
	}
	if r.Version == 1 {
		fmt.Println("version 1 replay: drawn from its recorded actions; its statuses cannot be checked (see arena replay verify)")
	}
	return showTurn(os.Stdout, r, st, n, useColor(c.Color, os.Stdout))
}

// showTurn writes the board after n turns, then what every seat did in turn
// n and the scores. Answers and reasons come from bots: they are quoted, so
// no control character reaches the terminal.
func showTurn(w io.Writer, r *replay.Replay, st game.State, n int, color bool) error {
	fmt.Fprintf(w, "%s, seed %d, after turn %d of %d\n", r.Game, r.Seed, n, len(r.Turns))
	if rd, ok := st.(renderer); ok {
		rd.Render(w, color)
	}
	if n > 0 {
		fmt.Fprintf(w, "turn %d:\n", n)
		for _, s := range r.Turns[n-1].Seats {
			spec := ""
			if s.Seat >= 0 && s.Seat < len(r.Bots) {
				spec = r.Bots[s.Seat].Spec
			}
			// A replay file may come from anyone: everything from it is
			// escaped or quoted before it reaches the terminal.
			fmt.Fprintf(w, "  seat %d %-24s %-9s fuel %-10d", s.Seat, strconv.Quote(spec), escapeControls([]byte(s.Status)), s.Fuel)
			if b, whole, err := s.AnswerBytes(); err == nil && (len(b) > 0 || !s.Failed) {
				fmt.Fprintf(w, " answer %s", quoteClipped(b, whole))
			}
			if s.Action != nil {
				fmt.Fprintf(w, " applied %s", escapeControls(s.Action))
			}
			if s.Reason != "" {
				fmt.Fprintf(w, " (%s)", quoteClipped([]byte(s.Reason), true))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "scores %v\n", st.Scores())
	return nil
}

// quoteClipped quotes at most 120 bytes of b, marking what was left out.
func quoteClipped(b []byte, whole bool) string {
	const most = 120
	if len(b) <= most {
		q := strconv.Quote(string(b))
		if !whole {
			q += "…(cut)"
		}
		return q
	}
	return strconv.Quote(string(b[:most])) + fmt.Sprintf("…(%d bytes)", len(b))
}

type logsCmd struct {
	File string `arg:"" type:"existingfile" help:"Replay file."`
	Seat int    `required:"" help:"Seat whose bot's stderr to print."`
}

func (c *logsCmd) Run() error {
	r, err := replay.Load(c.File)
	if err != nil {
		return err
	}
	for _, l := range r.Logs {
		if l.Seat != c.Seat {
			continue
		}
		data, err := l.Bytes()
		if err != nil {
			return err
		}
		if term.IsTerminal(int(os.Stdout.Fd())) {
			data = escapeControls(data)
		}
		_, err = os.Stdout.Write(data)
		return err
	}
	if c.Seat < 0 || c.Seat >= len(r.Bots) {
		return fmt.Errorf("seat %d: the match has seats 0 to %d", c.Seat, len(r.Bots)-1)
	}
	return fmt.Errorf("the replay keeps no log of seat %d", c.Seat)
}

// escapeControls makes a bot's log safe for a terminal: line breaks and tabs
// stay, every other control character and every byte of invalid UTF-8 is
// written as a Go escape (\x1b, \u009b), so a log cannot move the cursor,
// change colours or retitle the window.
func escapeControls(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && size == 1:
			out = fmt.Appendf(out, `\x%02x`, data[0])
		case r == '\n' || r == '\t':
			out = append(out, byte(r))
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r):
			q := strconv.QuoteRune(r)
			out = append(out, q[1:len(q)-1]...)
		default:
			out = append(out, data[:size]...)
		}
		data = data[size:]
	}
	return out
}
