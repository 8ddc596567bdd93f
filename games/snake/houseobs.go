package snake

// What the house's wasm ladder entries need of the game (internal/housebots):
// which house bots play there, and how to read an observation back into a
// State that the native house bot can be asked with.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/sdk"
)

// Ladder lists the house bots on the rated ladder, weakest first.
func (Game) Ladder() []game.LadderEntry {
	return []game.LadderEntry{{Name: "random"}, {Name: "safe"}, {Name: "search"}}
}

// HouseDecoder returns what reads an observation for a wasm house bot.
func (Game) HouseDecoder() func(sdk.JSON) (game.State, int, error) { return decodeObservation }

// decodeObservation rebuilds the position from the /move body. Snakes that
// are out are not in it: their seats come back as out (from turn 1), and a
// seat after the last one listed is not known at all, which no house bot
// needs. The turn limit is not in the observation: the default stands.
func decodeObservation(obs sdk.JSON) (game.State, int, error) {
	var s State
	s.Set = DefaultSettings()
	s.TurnNum = obs.Get("turn").Int()
	g := obs.Get("game")
	seed, _ := strconv.ParseUint(g.Get("id").Str(), 10, 64)
	s.Seed = seed
	rules := g.Get("ruleset").Get("settings")
	s.Set.FoodSpawnChance = rules.Get("foodSpawnChance").Int()
	s.Set.MinimumFood = rules.Get("minimumFood").Int()
	b := obs.Get("board")
	s.Set.Width, s.Set.Height = b.Get("width").Int(), b.Get("height").Int()
	if s.Set.Width < 1 || s.Set.Height < 1 || s.Set.Width > 64 || s.Set.Height > 64 {
		return nil, 0, fmt.Errorf("a board of %dx%d", s.Set.Width, s.Set.Height)
	}
	for _, f := range b.Get("food").Elems() {
		s.Food = append(s.Food, Point{f.Get("x").Int(), f.Get("y").Int()})
	}
	for _, o := range b.Get("snakes").Elems() {
		seat, err := seatOf(o.Get("id").Str())
		if err != nil {
			return nil, 0, err
		}
		for len(s.Snakes) <= seat {
			s.Snakes = append(s.Snakes, Snake{Out: 1, Cause: "before"})
		}
		sn := Snake{Health: o.Get("health").Int(), Shout: o.Get("shout").Str()}
		for _, p := range o.Get("body").Elems() {
			sn.Body = append(sn.Body, Point{p.Get("x").Int(), p.Get("y").Int()})
		}
		if len(sn.Body) == 0 || s.Snakes[seat].Out == 0 {
			return nil, 0, fmt.Errorf("snake %d: no body, or listed twice", seat)
		}
		s.Snakes[seat] = sn
	}
	you, err := seatOf(obs.Get("you").Get("id").Str())
	if err != nil {
		return nil, 0, err
	}
	if you >= len(s.Snakes) || !s.Snakes[you].Alive() {
		return nil, 0, errors.New("you are not on the board")
	}
	s.N = len(s.Snakes)
	s.refreshAsked()
	return &s, you, nil
}

func seatOf(id string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "seat-"))
	if err != nil || n < 0 || n >= 8 || !strings.HasPrefix(id, "seat-") {
		return 0, fmt.Errorf("snake id %q: want seat-0 to seat-7", id)
	}
	return n, nil
}
