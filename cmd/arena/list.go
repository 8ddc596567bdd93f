package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/internal/kits"
)

type gamesCmd struct {
	JSON bool `name:"json" help:"Print one JSON array."`
}

// gameListing is one game in `arena games --json`.
type gameListing struct {
	ID      string         `json:"id"`
	Name    string         `json:"name"`
	Players []int          `json:"players"`
	Params  []paramListing `json:"params"`
	Fuel    fuelListing    `json:"fuel"`
	// Kits lists the languages of the game's starter kits (arena new).
	Kits []string `json:"kits"`

	players string // for the table
}

// fuelListing is a game's fuel policy for wasm bots (docs/fuel.md).
type fuelListing struct {
	PerTurn   int64 `json:"per_turn"`
	Cap       int64 `json:"cap"`
	PerGame   int64 `json:"per_game,omitempty"`
	PerAnswer int64 `json:"per_answer,omitempty"`
}

type paramListing struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
}

func (c gamesCmd) Run() error {
	var list []gameListing
	for _, g := range games.All() {
		info := g.Info()
		l := gameListing{ID: info.ID, Name: info.Name, Players: info.Players, Params: []paramListing{}, Kits: []string{}, players: info.PlayerCounts()}
		fp := info.Fuel
		if fp == (game.FuelPolicy{}) {
			fp = game.DefaultFuel
		}
		l.Fuel = fuelListing{fp.PerTurn, fp.Cap, fp.PerGame, fp.PerAnswer}
		l.Kits = append(l.Kits, kits.Languages(g)...)
		for _, p := range info.Params {
			l.Params = append(l.Params, paramListing{p.Name, p.Default, p.Doc})
		}
		list = append(list, l)
	}
	if c.JSON {
		return printJSON(list)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tPLAYERS\tPARAMETERS (default)")
	for _, l := range list {
		var params []string
		for _, p := range l.Params {
			params = append(params, fmt.Sprintf("%s=%s", p.Name, p.Default))
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", l.ID, l.Name, l.players, strings.Join(params, " "))
	}
	return w.Flush()
}

type botsCmd struct {
	JSON bool `name:"json" help:"Print one JSON object."`
}

// botKinds are the kinds of bot SPEC, in the order `arena bots` lists them.
var botKinds = []struct{ Spec, Doc string }{
	{"builtin:NAME", "a house bot, below"},
	{"exec:COMMAND", "a native program speaking the bot protocol (local only)"},
	{"wasm:PATH", "a WebAssembly module, sandboxed and metered in fuel"},
	{"potm:PATH", "an unchanged 2006 LINES and BOXES contest entry (local only)"},
	{"battlesnake:URL", "a Battlesnake HTTP server, for Snake (local only)"},
	{"house:NAME", "a ladder entry of @house: the wasm module arena serve plays on the rated ladder, below"},
}

type houseBotListing struct {
	Game string `json:"game"`
	Spec string `json:"spec"`
	Doc  string `json:"doc"`
}

type kindListing struct {
	Spec string `json:"spec"`
	Doc  string `json:"doc"`
}

func (c botsCmd) Run() error {
	var house []houseBotListing
	for _, g := range games.All() {
		for _, hb := range g.HouseBots() {
			house = append(house, houseBotListing{g.Info().ID, "builtin:" + hb.Name, hb.Doc})
		}
	}
	for _, e := range housebots.Entries() {
		house = append(house, houseBotListing{e.Game, "house:" + e.Name, "builtin:" + e.Name + " as the ladder's wasm module, within the game's fuel"})
	}
	if c.JSON {
		kinds := make([]kindListing, len(botKinds))
		for i, k := range botKinds {
			kinds[i] = kindListing(k)
		}
		return printJSON(struct {
			Kinds []kindListing     `json:"kinds"`
			House []houseBotListing `json:"house"`
		}{kinds, house})
	}
	fmt.Println("Kinds of bot (--bot SPEC):")
	for _, k := range botKinds {
		fmt.Printf("  %-14s %s\n", k.Spec, k.Doc)
	}
	fmt.Println()
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "GAME\tHOUSE BOT\tPLAYS")
	for _, h := range house {
		fmt.Fprintf(w, "%s\t%s\t%s\n", h.Game, h.Spec, h.Doc)
	}
	return w.Flush()
}
