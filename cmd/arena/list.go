package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/arenabots/arena/games"
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
