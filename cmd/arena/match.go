package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"golang.org/x/term"
)

type matchCmd struct {
	Game   string            `required:"" help:"Game id (see 'arena games')."`
	Seed   uint64            `default:"1" help:"Match seed: the same seed and bots give the same match."`
	Bot    []string          `required:"" sep:"none" help:"Bot SPEC for the next seat: builtin:NAME, exec:COMMAND, wasm:PATH or potm:PATH. Repeat in seat order."`
	Param  map[string]string `help:"Game parameter k=v (see 'arena games'); k=@FILE reads the value from a file. Repeatable."`
	Replay string            `help:"Write the replay to this file."`
	JSON   bool              `name:"json" help:"Print one JSON object instead of the board."`
	Logs   string            `help:"Write each bot's stderr log to DIR/seat-N.log."`
	Color  string            `default:"auto" enum:"auto,always,never" help:"Colour the board: auto, always or never."`
	Watch  time.Duration     `help:"Redraw the board after every turn, pausing this long (e.g. 200ms)."`
	From   string            `type:"existingfile" help:"Play on from a recorded match: this replay's position after --turn turns (its seed and parameters)."`
	Turn   int               `help:"With --from: how many recorded turns to keep (0 = the start)."`
}

// matchSummary is the --json output: PRODUCT.md's contract.
type matchSummary struct {
	Game      string                `json:"game"`
	Seed      uint64                `json:"seed"`
	Bots      []string              `json:"bots"`
	Turns     int                   `json:"turns"`
	Scores    []int64               `json:"scores"`
	Placement []int                 `json:"placement"`
	Statuses  []map[game.Status]int `json:"statuses"`
	Replay    string                `json:"replay,omitempty"`
}

// renderer is a state that can draw itself in a terminal.
type renderer interface {
	Render(w io.Writer, color bool)
}

func (c *matchCmd) Run() error {
	g, err := games.Lookup(c.Game)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var last game.State
	color := useColor(c.Color)
	runner := match.Runner{OnTurn: func(t *replay.Turn, st game.State) {
		last = st
		if rd, ok := st.(renderer); ok && c.Watch > 0 && !c.JSON {
			fmt.Print("\x1b[H\x1b[2J") // home and clear, so the board redraws in place
			fmt.Printf("%s, turn %d\n", c.Game, t.Turn)
			rd.Render(os.Stdout, color)
			time.Sleep(c.Watch)
		}
	}}
	params, err := readParams(c.Param)
	if err != nil {
		return err
	}
	cfg := game.Config{Seed: c.Seed, Players: len(c.Bot), Params: params}
	if c.From != "" {
		if runner.From, cfg, err = resumeFrom(c.From, c.Turn, c.Game, len(c.Bot), len(c.Param) > 0); err != nil {
			return err
		}
		runner.FromTurn = c.Turn
	}
	r, err := runner.Play(ctx, g, cfg, spec.Opener(c.Bot))
	if err != nil {
		return err
	}
	if c.Replay != "" {
		if err := r.Save(c.Replay); err != nil {
			return fmt.Errorf("writing the replay: %w", err)
		}
	}
	if c.Logs != "" {
		if err := writeLogs(c.Logs, r.Logs); err != nil {
			return err
		}
	}
	if c.JSON {
		return printJSON(matchSummary{
			Game: r.Game, Seed: r.Seed, Bots: c.Bot, Turns: r.Result.Turns,
			Scores: r.Result.Scores, Placement: r.Result.Placement,
			Statuses: r.Result.Statuses, Replay: c.Replay,
		})
	}
	if rd, ok := last.(renderer); ok {
		rd.Render(os.Stdout, color)
		fmt.Println()
	}
	printResult(os.Stdout, r, c.Bot)
	return nil
}

// readParams turns --param flags into game parameters, reading every value
// written @FILE from that file (a Lines and Boxes board as a contest input
// file, say).
func readParams(flags map[string]string) (game.Params, error) {
	params := game.Params{}
	for k, v := range flags {
		if path, ok := strings.CutPrefix(v, "@"); ok {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("parameter %s: %w", k, err)
			}
			v = string(data)
		}
		params[k] = v
	}
	return params, nil
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func useColor(mode string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(os.Stdout.Fd()))
}

// printResult writes the placement table: place, seat, bot, score, statuses.
func printResult(w io.Writer, r *replay.Replay, specs []string) {
	fmt.Fprintf(w, "%s, seed %d, %d turns\n", r.Game, r.Seed, r.Result.Turns)
	for place, seat := range r.Result.Placement {
		fmt.Fprintf(w, "%d. seat %d %-28s score %-6d %s\n", place+1, seat, specs[seat],
			r.Result.Scores[seat], statusLine(r.Result.Statuses[seat]))
	}
}

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

func writeLogs(dir string, logs []replay.Log) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, l := range logs {
		log, err := l.Bytes()
		if err != nil {
			return err
		}
		if err := os.WriteFile(fmt.Sprintf("%s/seat-%d.log", dir, l.Seat), log, 0o644); err != nil {
			return err
		}
	}
	return nil
}
