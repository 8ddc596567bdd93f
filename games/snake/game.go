// Package snake is Snake: Battlesnake's standard game on Arena's terms
// (docs/games/snake.md). Every live snake moves at once each turn; a snake
// that runs out of health, leaves the board, or runs its head into a body,
// or into a head at least as long as itself, is eliminated; food makes a
// snake grow and restores its health. The observation is Battlesnake's
// /move request body and the answer its /move response, so a Battlesnake
// bot ports with a change of transport.
//
// The engine works on small slices: Step resolves a turn from typed moves,
// and Apply is the JSON shell around it that the match runner calls.
package snake

import (
	"fmt"
	"time"

	"github.com/arenabots/arena/game"
)

// Game is Snake for the registry.
type Game struct{}

// Parameter names, as on the rules page's table.
const (
	ParamWidth           = "width"
	ParamHeight          = "height"
	ParamMinimumFood     = "minimum_food"
	ParamFoodSpawnChance = "food_spawn_chance"
	ParamMaxTurns        = "max_turns"
)

// Settings are the match parameters in force, as integers.
type Settings struct {
	Width, Height   int
	MinimumFood     int
	FoodSpawnChance int // percent per turn
	MaxTurns        int
}

// DefaultSettings are the rules page's defaults.
func DefaultSettings() Settings {
	return Settings{Width: 11, Height: 11, MinimumFood: 1, FoodSpawnChance: 15, MaxTurns: 500}
}

var params = game.IntParams[Settings]{
	{Name: ParamWidth, Doc: "board width (odd, 7..25)", Min: 7, Max: 25, Odd: true, Label: "Width",
		Field: func(s *Settings) *int { return &s.Width }},
	{Name: ParamHeight, Doc: "board height (odd, 7..25)", Min: 7, Max: 25, Odd: true, Label: "Height",
		Field: func(s *Settings) *int { return &s.Height }},
	{Name: ParamMinimumFood, Doc: "food on the board is topped up to this many pieces after every turn", Min: 0, Max: 20,
		Field: func(s *Settings) *int { return &s.MinimumFood }},
	{Name: ParamFoodSpawnChance, Doc: "with at least minimum_food on the board, the chance in percent that one more piece appears after a turn", Min: 0, Max: 100,
		Field: func(s *Settings) *int { return &s.FoodSpawnChance }},
	{Name: ParamMaxTurns, Doc: "the match ends after this many turns", Min: 50, Max: 2000,
		Field: func(s *Settings) *int { return &s.MaxTurns }},
}

// Players are the player counts the game allows; the ladder plays 2 and 4.
var Players = []int{2, 3, 4, 5, 6, 7, 8}

// Info describes the game.
func (Game) Info() game.Info {
	return game.Info{
		ID:      "snake",
		Name:    "Snake",
		Players: Players,
		Params:  params.Info(DefaultSettings()),
		Fuel:    game.DefaultFuel,
		// Snakes eliminated on the same turn with the same length share a
		// place, and so do survivors of the turn limit with the same length
		// and health: Scores encode exactly that order (see Scores).
		Ties: true,
		// A match of a few hundred turns at the site's usual 250 ms would
		// be watched for a minute and more.
		Display: game.Display{WatchPace: 150 * time.Millisecond},
		// The ladder plays the two sizes people know from Battlesnake's
		// duels and its standard four-snake games.
		LadderPlayers: []int{2, 4},
	}
}

// ParseSettings reads params over the defaults and checks them.
func ParseSettings(players int, p game.Params) (Settings, error) {
	if players < 2 || players > 8 {
		return Settings{}, fmt.Errorf("snake: %d players: the game is for 2 to 8", players)
	}
	s := DefaultSettings()
	if err := params.Read(p, &s); err != nil {
		return Settings{}, fmt.Errorf("snake: %w", err)
	}
	return s, nil
}

// Params returns every parameter of s by name.
func (s Settings) Params() game.Params { return params.Params(s) }

// New starts a match.
func (Game) New(cfg game.Config) (game.State, error) {
	set, err := ParseSettings(cfg.Players, cfg.Params)
	if err != nil {
		return nil, err
	}
	return NewState(set, cfg.Players, cfg.Seed), nil
}
