package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/server"
)

type seedCmd struct {
	Matches  int    `required:"" help:"Finished matches (unrated challenges between house bots) to add."`
	Data     string `default:"./arena-data" type:"path" help:"Data directory to fill (made if missing; arena serve --data uses it)."`
	DB       string `name:"db" help:"Database URL: postgres://... for Postgres; empty for SQLite under --data."`
	Game     string `help:"Game of the matches, its house bots playing them (default: the first of arena games)."`
	Distinct int    `default:"24" help:"Matches really played; the others are copies of them under new ids."`
}

// Run fills a data directory through the store's own code: see
// server.Seed for what is played and what is copied.
func (c *seedCmd) Run() error {
	if c.Matches < 1 {
		return usagef("--matches %d: want 1 or more", c.Matches)
	}
	if c.Distinct < 1 {
		return usagef("--distinct %d: want 1 or more", c.Distinct)
	}
	if c.Game == "" {
		c.Game = games.All()[0].Info().ID
	}
	if _, err := lookupGame(c.Game); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	n, err := server.Seed(ctx, server.SeedOptions{DataDir: c.Data, DB: c.DB, Game: c.Game, Matches: c.Matches, Distinct: c.Distinct,
		Progress: func(done int) {
			if done%10000 == 0 || done == c.Matches {
				fmt.Fprintf(os.Stderr, "arena seed: %d of %d matches\n", done, c.Matches)
			}
		}})
	if err != nil {
		return fmt.Errorf("seed: %d matches recorded, then: %w", n, err)
	}
	fmt.Printf("arena seed: %d finished %s matches in %s, in %v\n", n, c.Game, c.Data, time.Since(start).Round(time.Millisecond))
	return nil
}
