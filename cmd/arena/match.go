package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/botcheck"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox"
	"golang.org/x/term"
)

type matchCmd struct {
	Game        string        `required:"" help:"Game id (see 'arena games')."`
	Seed        uint64        `default:"1" help:"Match seed: the same seed and bots give the same match."`
	Bot         []string      `required:"" sep:"none" help:"Bot SPEC for the next seat: builtin:NAME, exec:COMMAND, wasm:PATH, potm:PATH or battlesnake:URL. Repeat in seat order."`
	Param       []string      `sep:"none" help:"Game parameter k=v (see 'arena games'); k=@FILE reads the value from a file. Repeatable, once per name."`
	Replay      string        `help:"Write the replay to this file."`
	JSON        bool          `name:"json" help:"Print one JSON object instead of the board (with --watch, the boards go to stderr)."`
	Logs        string        `help:"Write each bot's stderr log to DIR/seat-N.log."`
	Color       string        `default:"auto" enum:"auto,always,never" help:"Colour the board: auto, always or never."`
	Watch       time.Duration `help:"Draw the board after every turn, pausing this long (e.g. 200ms)."`
	From        string        `type:"existingfile" help:"Play on from a recorded match: this replay's position after --turn turns (its seed and parameters)."`
	Turn        int           `help:"With --from: how many recorded turns to keep (0 = the start)."`
	ExecTimeout time.Duration `default:"2s" help:"The wall-clock limit per answer of an exec: bot (a native program is not metered)."`
	profileFlags
	ProfileSeat string `name:"profile" placeholder:"SEAT" help:"Print where the wasm bot in this seat (0, 1, ...) spends its fuel, by function and host call (docs/fuel.md)."`
}

// matchSummary is the --json output (docs/cli.md): the fields tests outside
// the project rely on, plus fuel and hints.
type matchSummary struct {
	Game      string                `json:"game"`
	Seed      uint64                `json:"seed"`
	Bots      []string              `json:"bots"`
	Turns     int                   `json:"turns"`
	Scores    []int64               `json:"scores"`
	Placement []int                 `json:"placement"`
	Statuses  []map[game.Status]int `json:"statuses"`
	// Fuel is per seat: the fuel of its answers (all zero for bots that are
	// not metered).
	Fuel   []botcheck.FuelStats `json:"fuel"`
	Replay string               `json:"replay,omitempty"`
	Hints  []string             `json:"hints,omitempty"`
}

// renderer is a state that can draw itself in a terminal.
type renderer interface {
	Render(w io.Writer, color bool)
}

func (c *matchCmd) Run() error {
	g, err := lookupGame(c.Game)
	if err != nil {
		return err
	}
	if c.ExecTimeout <= 0 {
		return usagef("--exec-timeout %v: want a limit above 0, like 5s", c.ExecTimeout)
	}
	if c.Watch < 0 {
		return usagef("--watch %v: want a pause of 0 or more, like 200ms", c.Watch)
	}
	params, err := parseParams(c.Param)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	specs, err := setup(ctx, g, c.Seed, params, c.Bot)
	if err != nil {
		return err
	}
	// The board goes to stdout, or to stderr when stdout carries the JSON.
	board := os.Stdout
	if c.JSON {
		board = os.Stderr
	}
	color := useColor(c.Color, board)
	var last game.State
	var w *watcher
	if c.Watch > 0 {
		w = newWatcher(board, c.Game, color, c.Watch)
	}
	runner := match.Runner{OnTurn: func(t *replay.Turn, st game.State) {
		last = st
		if w != nil {
			w.turn(t, st)
		}
	}}
	seed := c.Seed
	if c.From != "" {
		// The recorded match's seed and parameters: replay.go's resumeFrom.
		if runner.From, err = resumeFrom(c.From, c.Turn, c.Game, len(c.Bot), len(c.Param) > 0); err != nil {
			return err
		}
		runner.FromTurn, seed, params = c.Turn, runner.From.Seed, runner.From.Params
	}
	profSeat, prof, err := c.profileSeat(specs)
	if err != nil {
		return err
	}
	open := spec.Seats(specs, local.Opener{ProfileSeat: profSeat, Profile: prof, ExecTimeout: c.ExecTimeout})
	r, logs, err := playOpener(ctx, runner, g, seed, params, len(specs), open)
	if err != nil {
		return err
	}
	if prof != nil {
		out := os.Stdout
		if c.JSON {
			out = os.Stderr
		}
		fmt.Fprintf(out, "seat %d, %s: ", profSeat, c.Bot[profSeat])
		if err := c.writeProfile(out, prof); err != nil {
			return err
		}
	}
	if c.Replay != "" {
		if err := r.Save(c.Replay); err != nil {
			return fmt.Errorf("writing the replay: %w", err)
		}
	}
	if c.Logs != "" {
		if err := writeLogs(c.Logs, logs); err != nil {
			return err
		}
	}
	var hints []string
	for seat := range c.Bot {
		hints = append(hints, botcheck.ReplayHints(r, seat)...)
	}
	fuel := make([]botcheck.FuelStats, len(c.Bot))
	for seat := range fuel {
		fuel[seat] = botcheck.Fuel(r, seat, botcheck.TankOf(g))
	}
	if c.JSON {
		return printJSON(matchSummary{
			Game: r.Game, Seed: r.Seed, Bots: c.Bot, Turns: r.Result.Turns,
			Scores: r.Result.Scores, Placement: r.Result.Placement,
			Statuses: r.Result.Statuses, Fuel: fuel, Replay: c.Replay, Hints: hints,
		})
	}
	if c.Watch == 0 { // a watched match has drawn its final board already
		if rd, ok := last.(renderer); ok {
			rd.Render(os.Stdout, color)
			fmt.Println()
		}
	}
	printResult(os.Stdout, r, c.Bot, fuel)
	for _, h := range hints {
		fmt.Fprintf(os.Stderr, "hint: %s\n", h)
	}
	return nil
}

// profileSeat reads --profile: the seat and a profile for it, or -1 and
// nil when no seat is profiled.
func (c *matchCmd) profileSeat(specs []spec.Spec) (int, *sandbox.Profile, error) {
	if c.ProfileSeat == "" {
		return -1, nil, nil
	}
	seat, err := strconv.Atoi(c.ProfileSeat)
	if err != nil || seat < 0 || seat >= len(c.Bot) {
		return 0, nil, usagef("--profile %q: want a seat from 0 to %d", c.ProfileSeat, len(c.Bot)-1)
	}
	if specs[seat].Kind != spec.Wasm {
		return 0, nil, usagef("--profile %d: seat %d is %s, and only a wasm: bot spends fuel", seat, seat, specs[seat])
	}
	return seat, sandbox.NewProfile(), nil
}

// watcher draws the board after every turn: in place on a terminal, one
// board after another (no control codes) anywhere else.
type watcher struct {
	w        *os.File
	game     string
	color    bool
	terminal bool
	pause    time.Duration
}

func newWatcher(w *os.File, game string, color bool, pause time.Duration) *watcher {
	return &watcher{w: w, game: game, color: color, terminal: term.IsTerminal(int(w.Fd())), pause: pause}
}

func (w *watcher) turn(t *replay.Turn, st game.State) {
	rd, ok := st.(renderer)
	if !ok {
		return
	}
	if w.terminal {
		fmt.Fprint(w.w, "\x1b[H\x1b[2J") // home and clear, so the board redraws in place
	}
	fmt.Fprintf(w.w, "%s, turn %d\n", w.game, t.Turn)
	rd.Render(w.w, w.color)
	fmt.Fprintln(w.w)
	if !st.Done() {
		time.Sleep(w.pause)
	}
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func useColor(mode string, w *os.File) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(w.Fd()))
}

// printResult writes the placement table: place, seat, bot, score,
// statuses, and the fuel per answer of metered bots.
func printResult(w io.Writer, r *replay.Replay, specs []string, fuel []botcheck.FuelStats) {
	fmt.Fprintf(w, "%s, seed %d, %d turns\n", r.Game, r.Seed, r.Result.Turns)
	for place, seat := range r.Result.Placement {
		fmt.Fprintf(w, "%d. seat %d %-28s score %-6d %s\n", place+1, seat, specs[seat],
			r.Result.Scores[seat], statusLine(r.Result.Statuses[seat]))
	}
	for seat, f := range fuel {
		if f.Answers > 0 {
			fmt.Fprintf(w, "seat %d fuel per answer: %s\n", seat, fuelLine(f))
		}
	}
}

// fuelLine writes fuel figures as "min 1.2k, median 40k, max 2.1M (10% of the tank)".
func fuelLine(f botcheck.FuelStats) string {
	return fmt.Sprintf("min %s, median %s, max %s (%.1f%% of the %s tank)",
		count(f.Min), count(f.Median), count(f.Max), 100*f.Share(), count(f.Tank))
}

// count writes a number of instructions briefly: 950, 12.3k, 4.56M.
func count(n int64) string { return sandbox.FuelCount(n) }

// statusLine writes a seat's answer counts in the protocol's status order.
func statusLine(counts map[game.Status]int) string {
	s := ""
	for _, st := range game.Statuses {
		if n := counts[st]; n > 0 {
			if s != "" {
				s += " "
			}
			s += fmt.Sprintf("%s:%d", st, n)
		}
	}
	return s
}

func writeLogs(dir string, logs [][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for seat, log := range logs {
		if err := os.WriteFile(fmt.Sprintf("%s/seat-%d.log", dir, seat), log, 0o644); err != nil {
			return err
		}
	}
	return nil
}
