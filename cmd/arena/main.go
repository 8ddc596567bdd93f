// Command arena is the platform's command line: play a match, check a replay,
// run a tournament, list games and bots (docs/cli.md).
package main

import (
	"fmt"
	"os"

	"github.com/alecthomas/kong"
)

// cli is the whole command line; kong reads flags, defaults and help from it.
type cli struct {
	Match      matchCmd      `cmd:"" help:"Play one match and print its result."`
	Replay     replayCmd     `cmd:"" help:"Check or re-run a replay."`
	Tournament tournamentCmd `cmd:"" help:"Run a round robin: seat-swapped games on shared boards, match points."`
	Games      gamesCmd      `cmd:"" help:"List the games."`
	Bots       botsCmd       `cmd:"" help:"List the kinds of bot and the house bots."`
	Serve      serveCmd      `cmd:"" help:"Run the platform: API, matchmaker, workers (docs/api.md)."`
	Push       pushCmd       `cmd:"" help:"Upload a wasm bot to a server."`
	Worker     workerCmd     `cmd:"" help:"Run matches for a server on another machine, over NATS (docs/deploy.md)."`
}

type replayCmd struct {
	Verify verifyCmd `cmd:"" help:"Re-apply a replay's actions and check every state hash and the result."`
	Rerun  rerunCmd  `cmd:"" help:"Re-execute a replay's bots and check they give the same answers."`
}

// exitError carries an exit status without a second message.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	var c cli
	ctx := kong.Parse(&c,
		kong.Name("arena"),
		kong.Description("Arena: bots play turn-based games, metered and reproducible."),
		kong.UsageOnError(),
	)
	err := ctx.Run()
	if e, ok := err.(exitError); ok {
		os.Exit(e.code)
	}
	ctx.FatalIfErrorf(err)
}
