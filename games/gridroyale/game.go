// Package gridroyale is Grid Royale, the resource-economy battle royale whose
// rules docs/games/grid-royale.md gives in full, with the points the published
// page leaves open decided there: 2 players on 24x24 or 4 on 32x32,
// units that harvest ore, carry it home and bank it, collisions that kill and
// spill, and a border that closes one ring every shrink_interval turns.
//
// The engine works on plain slices and integers. A turn (Step) reads typed
// batches and allocates nothing; Apply is the JSON shell around it that the
// match runner calls.
package gridroyale

import (
	"fmt"
	"time"

	"github.com/arenabots/arena/game"
)

// Game is Grid Royale for the registry.
type Game struct{}

// Parameter names, as on the rules page's table.
const (
	ParamGridSide        = "grid_side"
	ParamCargoCap        = "cargo_cap"
	ParamHarvestDivisor  = "harvest_divisor"
	ParamMoveCostDivisor = "move_cost_divisor"
	ParamSpawnCost       = "spawn_cost"
	ParamUnitsCap        = "units_cap"
	ParamMaxTurns        = "max_turns"
	ParamShrinkInterval  = "shrink_interval"
	ParamMinZone         = "min_zone"
)

// StartBank is every player's bank before the first turn (spec: "Bases and the start").
const StartBank = 1000

// MaxCellOre is the most ore the generator puts on one cell.
const MaxCellOre = 4000

// Settings are the match parameters in force, as integers.
type Settings struct {
	GridSide        int
	CargoCap        int
	HarvestDivisor  int
	MoveCostDivisor int
	SpawnCost       int
	UnitsCap        int
	MaxTurns        int
	ShrinkInterval  int
	MinZone         int
}

// DefaultSettings are the rules page's defaults for a player count.
func DefaultSettings(players int) Settings {
	side := 24
	if players == 4 {
		side = 32
	}
	return Settings{
		GridSide:        side,
		CargoCap:        1000,
		HarvestDivisor:  4,
		MoveCostDivisor: 10,
		SpawnCost:       500,
		UnitsCap:        50,
		MaxTurns:        400,
		ShrinkInterval:  25,
		MinZone:         8,
	}
}

var paramSpecs = game.IntParams[Settings]{
	{Name: ParamGridSide, Doc: "side of the square grid: 24 for 2 players, 32 for 4 (even, 12..64)", Min: 12, Max: 64,
		Field: func(s *Settings) *int { return &s.GridSide }},
	{Name: ParamCargoCap, Doc: "most ore one unit carries", Min: 1, Max: 1 << 20,
		Field: func(s *Settings) *int { return &s.CargoCap }},
	{Name: ParamHarvestDivisor, Doc: "a STAY unit harvests floor(cell_ore / harvest_divisor)", Min: 1, Max: 1 << 20,
		Field: func(s *Settings) *int { return &s.HarvestDivisor }},
	{Name: ParamMoveCostDivisor, Doc: "a move costs floor(source_cell_ore / move_cost_divisor) from cargo", Min: 1, Max: 1 << 20,
		Field: func(s *Settings) *int { return &s.MoveCostDivisor }},
	{Name: ParamSpawnCost, Doc: "bank spent on a new unit", Min: 0, Max: 1 << 20,
		Field: func(s *Settings) *int { return &s.SpawnCost }},
	{Name: ParamUnitsCap, Doc: "most living units per player", Min: 1, Max: 1000,
		Field: func(s *Settings) *int { return &s.UnitsCap }},
	{Name: ParamMaxTurns, Doc: "the match ends after this many turns", Min: 1, Max: 100000,
		Field: func(s *Settings) *int { return &s.MaxTurns }},
	{Name: ParamShrinkInterval, Doc: "the safe zone shrinks one ring every this many turns", Min: 1, Max: 100000,
		Field: func(s *Settings) *int { return &s.ShrinkInterval }},
	{Name: ParamMinZone, Doc: "side of the smallest safe zone (even, at least 8, so it holds every base)", Min: 8, Max: 64,
		Field: func(s *Settings) *int { return &s.MinZone }},
}

// Info describes the game.
func (Game) Info() game.Info {
	return game.Info{
		ID:      "grid-royale",
		Name:    "Grid Royale",
		Players: []int{2, 4},
		Params:  paramSpecs.Info(DefaultSettings(2)), // grid_side: 24, 32 for 4 players; State.Params gives the value in force
		Fuel:    game.DefaultFuel,
		// 400 turns at the site's usual 250 ms would be watched for 100 s.
		Display: game.Display{WatchPace: 120 * time.Millisecond},
	}
}

// ParseSettings reads params over the defaults for players and checks them.
func ParseSettings(players int, params game.Params) (Settings, error) {
	if players != 2 && players != 4 {
		return Settings{}, fmt.Errorf("grid-royale: %d players: the game is for 2 or 4", players)
	}
	s := DefaultSettings(players)
	if err := paramSpecs.Read(params, &s); err != nil {
		return Settings{}, fmt.Errorf("grid-royale: %w", err)
	}
	if s.GridSide%2 != 0 || s.MinZone%2 != 0 {
		return Settings{}, fmt.Errorf("grid-royale: grid_side=%d and min_zone=%d must both be even, so the zone stays centred", s.GridSide, s.MinZone)
	}
	if s.MinZone > s.GridSide {
		return Settings{}, fmt.Errorf("grid-royale: min_zone=%d is larger than grid_side=%d", s.MinZone, s.GridSide)
	}
	return s, nil
}

// Params returns every parameter of s by name.
func (s Settings) Params() game.Params { return paramSpecs.Params(s) }

// New starts a match.
func (Game) New(cfg game.Config) (game.State, error) {
	set, err := ParseSettings(cfg.Players, cfg.Params)
	if err != nil {
		return nil, err
	}
	return NewState(set, cfg.Players, cfg.Seed), nil
}
