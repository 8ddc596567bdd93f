// Package grobs reads Grid Royale observations for the wasm house bots (hostplay).
package grobs

import (
	"fmt"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/gridroyale"
	"github.com/arenabots/arena/sdk"
)

// Decode reads a Grid Royale observation into the state's exported
// fields, which are all the house bots read. A seat is out once it has no
// unit and cannot pay for one (the rules' elimination, which never undoes).
func Decode(obs sdk.JSON) (game.State, int, error) {
	var (
		turn, you, w        int
		zone, params, ore   sdk.JSON
		bases, banks, units sdk.JSON
	)
	for k, v := range obs.Fields() {
		switch k {
		case "turn":
			turn = v.Int()
		case "you":
			you = v.Int()
		case "width":
			w = v.Int()
		case "safe_zone":
			zone = v
		case "ore":
			ore = v
		case "bases":
			bases = v
		case "banks":
			banks = v
		case "units":
			units = v
		case "params":
			params = v
		}
	}
	s := &gridroyale.State{TurnNum: turn, W: w, NextID: 1}
	for k, v := range params.Fields() {
		p := &s.Set
		switch k {
		case "cargo_cap":
			p.CargoCap = v.Int()
		case "spawn_cost":
			p.SpawnCost = v.Int()
		case "move_cost_divisor":
			p.MoveCostDivisor = v.Int()
		case "harvest_divisor":
			p.HarvestDivisor = v.Int()
		case "units_cap":
			p.UnitsCap = v.Int()
		case "grid_side":
			p.GridSide = v.Int()
		case "players":
			s.N = v.Int()
		case "max_turns":
			p.MaxTurns = v.Int()
		case "shrink_interval":
			p.ShrinkInterval = v.Int()
		case "min_zone":
			p.MinZone = v.Int()
		}
	}
	if w < 1 || w > 64 || s.N < 1 || s.N > 8 || you < 0 || you >= s.N {
		return nil, 0, fmt.Errorf("a %d-wide grid for %d players, seat %d", w, s.N, you)
	}
	s.Ore = ore.Ints(make([]int, 0, w*w))
	if len(s.Ore) != w*w {
		return nil, 0, fmt.Errorf("ore holds %d cells, want %d", len(s.Ore), w*w)
	}
	s.Zone = gridroyale.Zone{X0: zone.Get("x0").Int(), Y0: zone.Get("y0").Int(), X1: zone.Get("x1").Int(), Y1: zone.Get("y1").Int()}
	s.Bases = make([]int, s.N)
	for _, b := range bases.Elems() {
		o, x, y := b.Get("owner").Int(), b.Get("x").Int(), b.Get("y").Int()
		if o < 0 || o >= s.N || x < 0 || x >= w || y < 0 || y >= w {
			return nil, 0, fmt.Errorf("base %d at (%d, %d) is off the grid", o, x, y)
		}
		s.Bases[o] = y*w + x
	}
	s.Banks = banks.Ints(make([]int, 0, s.N))
	if len(s.Banks) != s.N {
		return nil, 0, fmt.Errorf("%d banks for %d players", len(s.Banks), s.N)
	}
	els := units.Elems()
	s.Units = make([]gridroyale.Unit, 0, len(els))
	count := make([]int, s.N)
	for _, u := range els {
		var x gridroyale.Unit
		for k, v := range u.Fields() {
			switch k {
			case "id":
				x.ID = v.Int()
			case "owner":
				x.Owner = v.Int()
			case "x":
				x.X = v.Int()
			case "y":
				x.Y = v.Int()
			case "cargo":
				x.Cargo = v.Int()
			}
		}
		if x.Owner < 0 || x.Owner >= s.N || x.X < 0 || x.X >= w || x.Y < 0 || x.Y >= w {
			return nil, 0, fmt.Errorf("unit %d of seat %d at (%d, %d) is off the grid", x.ID, x.Owner, x.X, x.Y)
		}
		if n := len(s.Units); n > 0 && s.Units[n-1].ID >= x.ID {
			return nil, 0, fmt.Errorf("unit %d is out of id order", x.ID)
		}
		s.Units = append(s.Units, x)
		count[x.Owner]++
		s.NextID = x.ID + 1
	}
	s.Out = make([]bool, s.N)
	s.BankedAt = make([]int, s.N)
	for seat := range s.Out {
		s.Out[seat] = count[seat] == 0 && s.Banks[seat] < s.Set.SpawnCost
	}
	return s, you, nil
}
