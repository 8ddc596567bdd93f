package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/replay"
)

type gamesCmd struct{}

func (gamesCmd) Run() error {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tPLAYERS\tPARAMETERS (default)")
	for _, g := range games.All() {
		info := g.Info()
		var params []string
		for _, p := range info.Params {
			params = append(params, fmt.Sprintf("%s=%s", p.Name, p.Default))
		}
		players := strings.Trim(strings.ReplaceAll(fmt.Sprint(info.Players), " ", ","), "[]")
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", info.ID, info.Name, players, strings.Join(params, " "))
	}
	return w.Flush()
}

type botsCmd struct{}

func (botsCmd) Run() error {
	fmt.Println("Kinds of bot (--bot SPEC):")
	fmt.Println("  builtin:NAME   a house bot, below")
	fmt.Println("  exec:COMMAND   a native program speaking the bot protocol (local only)")
	fmt.Println("  wasm:PATH      a WebAssembly module, sandboxed and metered in fuel")
	fmt.Println("  potm:PATH      an unchanged 2006 LINES and BOXES contest entry (local only)")
	fmt.Println()
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "GAME\tHOUSE BOT\tPLAYS")
	for _, g := range games.All() {
		for _, hb := range g.HouseBots() {
			fmt.Fprintf(w, "%s\tbuiltin:%s\t%s\n", g.Info().ID, hb.Name, hb.Doc)
		}
	}
	return w.Flush()
}

type verifyCmd struct {
	File string `arg:"" type:"existingfile" help:"Replay file."`
}

func (c *verifyCmd) Run() error {
	r, err := replay.Load(c.File)
	if err != nil {
		return err
	}
	g, err := games.Lookup(r.Game)
	if err != nil {
		return err
	}
	if err := replay.Verify(r, g); err != nil {
		fmt.Fprintf(os.Stderr, "%s: FAILED: %v\n", c.File, err)
		return exitError{1}
	}
	fmt.Printf("%s: ok, %d turns, every state hash and the result match\n", c.File, len(r.Turns))
	return nil
}
