package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/tournament"
	"golang.org/x/term"
)

type tournamentCmd struct {
	Game        string        `required:"" help:"Game id (see 'arena games')."`
	Bot         []string      `required:"" sep:"none" help:"An entry's bot SPEC. Repeat for every entry."`
	Seed        uint64        `default:"1" help:"Tournament seed: it sets every board."`
	Param       []string      `sep:"none" help:"Game parameter k=v for every game; k=@FILE reads the value from a file. Repeatable, once per name."`
	Players     int           `help:"Seats per game (default 2 where the game allows it)."`
	Boards      int           `default:"4" help:"Starting positions every group meets on, in every seat order (1 or more)."`
	Finals      int           `help:"Send the top N entries (2 or more) to a finals round that decides their order."`
	FinalBoards int           `help:"Boards in the finals round (default twice --boards)."`
	Parallel    int           `help:"Matches at once (default: every core). The result does not depend on it."`
	Results     string        `help:"Append each finished game to FILE as it goes, one JSON object per line."`
	Replays     string        `help:"Keep every game's replay in DIR (round-R-game-N.json)."`
	JSON        bool          `name:"json" help:"Print one JSON object, with every game."`
	ExecTimeout time.Duration `default:"2s" help:"The wall-clock limit per answer of an exec: bot (a native program is not metered)."`
}

func (c *tournamentCmd) Run() error {
	g, err := lookupGame(c.Game)
	if err != nil {
		return err
	}
	params, err := parseParams(c.Param)
	if err != nil {
		return err
	}
	if c.Boards < 1 {
		return usagef("--boards %d: want 1 or more", c.Boards)
	}
	if c.FinalBoards < 0 || (c.FinalBoards > 0 && c.Finals == 0) {
		return usagef("--final-boards %d: want 1 or more, with --finals", c.FinalBoards)
	}
	if c.Finals < 0 || c.Finals == 1 || c.Finals > len(c.Bot) {
		return usagef("--finals %d: want 0 (no finals round) or 2 to %d, the number of entries", c.Finals, len(c.Bot))
	}
	if c.ExecTimeout <= 0 {
		return usagef("--exec-timeout %v: want a limit above 0, like 5s", c.ExecTimeout)
	}
	if c.Parallel < 0 {
		return usagef("--parallel %d: want 1 or more", c.Parallel)
	}
	if c.Players != 0 {
		if err := checkPlayers(g, c.Players); err != nil {
			return usagef("--players %d: %s is for %s players", c.Players, g.Info().ID, g.Info().PlayerCounts())
		}
	}
	bots, err := parseBots(c.Bot)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := tournament.Config{
		Game: g, Runner: specRunner{execTimeout: c.ExecTimeout}, Bots: bots, Seed: c.Seed, Params: params, Players: c.Players,
		Boards: c.Boards, Finals: c.Finals, FinalBoards: c.FinalBoards, Parallel: c.Parallel,
	}
	out, err := c.outputs()
	if err != nil {
		return err
	}
	defer out.close()
	cfg.OnGame = out.game
	if term.IsTerminal(int(os.Stderr.Fd())) {
		cfg.Progress = func(done, total int) {
			fmt.Fprintf(os.Stderr, "\r%s tournament: %d of %d games", c.Game, done, total)
			if done == total {
				fmt.Fprint(os.Stderr, "\r\x1b[K") // the line goes once the table is due
			}
		}
	}
	res, err := tournament.Run(ctx, cfg)
	if err != nil {
		var ue *tournament.UsageError
		if errors.As(err, &ue) {
			return usageError{err}
		}
		return err
	}
	if err := out.close(); err != nil {
		return err
	}
	if c.JSON {
		return printJSON(res)
	}
	fmt.Printf("%s tournament, seed %d: %d-player games, %d boards per group, every seat order, %d games\n",
		res.Game, res.Seed, res.Players, res.Boards, len(res.Games))
	if res.Finals != nil {
		fmt.Println("\nFinals")
		printStandings(res.Finals)
		fmt.Println("\nFirst round")
	}
	printStandings(res.RoundOne)
	return nil
}

// outputs are where finished games go as the tournament runs.
type outputs struct {
	results *os.File
	enc     *json.Encoder
	replays string
}

func (c *tournamentCmd) outputs() (*outputs, error) {
	o := &outputs{replays: c.Replays}
	if c.Replays != "" {
		if err := os.MkdirAll(c.Replays, 0o755); err != nil {
			return nil, err
		}
	}
	if c.Results != "" {
		f, err := os.Create(c.Results)
		if err != nil {
			return nil, err
		}
		o.results, o.enc = f, json.NewEncoder(f)
		o.enc.SetEscapeHTML(false)
	}
	return o, nil
}

// game writes one finished game: its line in --results, its replay in
// --replays. Each line is written whole, so a tournament stopped midway
// leaves every finished game readable.
func (o *outputs) game(gm tournament.GameRecord, r *replay.Replay) error {
	if o.replays != "" {
		if err := r.Save(filepath.Join(o.replays, fmt.Sprintf("round-%d-game-%d.json", gm.Round, gm.Index))); err != nil {
			return fmt.Errorf("--replays: %w", err)
		}
	}
	if o.enc != nil {
		if err := o.enc.Encode(gm); err != nil {
			return fmt.Errorf("--results: %w", err)
		}
	}
	return nil
}

func (o *outputs) close() error {
	if o.results == nil {
		return nil
	}
	err := o.results.Close()
	o.results, o.enc = nil, nil
	return err
}

func printStandings(rows []tournament.Standing) {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "#\tBot\tPoints\tScore\tGames\tFirsts\t")
	for i, s := range rows {
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%d\t%d\t\n", i+1, s.Bot, s.Points, s.Score, s.Games, s.Firsts)
	}
	w.Flush()
}
