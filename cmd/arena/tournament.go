package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"text/tabwriter"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/tournament"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

type tournamentCmd struct {
	Game        string            `required:"" help:"Game id (see 'arena games')."`
	Bot         []string          `required:"" sep:"none" help:"An entry's bot SPEC. Repeat for every entry."`
	Seed        uint64            `default:"1" help:"Tournament seed: it sets every board."`
	Param       map[string]string `help:"Game parameter k=v for every game; k=@FILE reads the value from a file. Repeatable."`
	Players     int               `help:"Seats per game (default 2 where the game allows it)."`
	Boards      int               `default:"4" help:"Starting positions every group meets on, in every seat order."`
	Finals      int               `help:"Send the top N entries to a finals round that decides their order."`
	FinalBoards int               `help:"Boards in the finals round (default twice --boards)."`
	Parallel    int               `help:"Matches at once (default: every core). The result does not depend on it."`
	JSON        bool              `name:"json" help:"Print one JSON object."`
}

func (c *tournamentCmd) Run() error {
	g, err := games.Lookup(c.Game)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	params, err := readParams(c.Param)
	if err != nil {
		return err
	}
	cfg := tournament.Config{
		Game: g, Bots: c.Bot, Seed: c.Seed, Params: params, Players: c.Players,
		Boards: c.Boards, Finals: c.Finals, FinalBoards: c.FinalBoards, Parallel: c.Parallel,
	}
	var bar *progressbar.ProgressBar
	if term.IsTerminal(int(os.Stderr.Fd())) {
		cfg.Progress = func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(os.Stderr),
					progressbar.OptionSetDescription("games"), progressbar.OptionShowCount(),
					progressbar.OptionClearOnFinish())
			}
			bar.Set(done)
		}
	}
	res, err := tournament.Run(ctx, cfg)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(res)
	}
	fmt.Printf("%s tournament, seed %d: %d-player games, %d boards per group, every seat order\n",
		res.Game, res.Seed, res.Players, res.Boards)
	if res.Finals != nil {
		fmt.Println("\nFinals")
		printStandings(res.Finals)
		fmt.Println("\nFirst round")
	}
	printStandings(res.RoundOne)
	return nil
}

func printStandings(rows []tournament.Standing) {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "#\tBot\tPoints\tScore\tGames\tFirsts\t")
	for i, s := range rows {
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%d\t%d\t\n", i+1, s.Bot, s.Points, s.Score, s.Games, s.Firsts)
	}
	w.Flush()
}
