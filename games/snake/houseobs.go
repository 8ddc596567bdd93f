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

// Ladder lists the house bots on the rated ladder, weakest first, each
// played by the house module (house/). Four entries, so that the ladder's
// 4-player matches can start before anyone uploads a bot.
func (Game) Ladder() []game.LadderEntry {
	return []game.LadderEntry{{Name: "random"}, {Name: "safe"}, {Name: "greedy"}, {Name: "search"}}
}

// HouseDecoder returns what reads an observation for a wasm house bot.
func (Game) HouseDecoder() func(sdk.JSON) (game.State, int, error) { return decodeObservation }

// decodeObservation rebuilds the position from the /move body. Snakes that
// are out are not in it: their seats come back as out (from turn 1), and a
// seat after the last one listed is not known at all, which no house bot
// needs. The turn limit is not in the observation: the default stands.
//
// It goes over each object once (Fields) rather than asking for field
// after field (Get scans from the object's start every time): as wasm,
// reading the observation field by field cost a quarter of search's turn.
func decodeObservation(obs sdk.JSON) (game.State, int, error) {
	var s State
	s.Set = DefaultSettings()
	var board, you sdk.JSON
	for name, v := range obs.Fields() {
		switch name {
		case "turn":
			s.TurnNum = v.Int()
		case "game":
			for name, v := range v.Fields() {
				switch name {
				case "id":
					s.Seed, _ = strconv.ParseUint(v.Str(), 10, 64)
				case "ruleset":
					rules := v.Get("settings")
					s.Set.FoodSpawnChance = rules.Get("foodSpawnChance").Int()
					s.Set.MinimumFood = rules.Get("minimumFood").Int()
				}
			}
		case "board":
			board = v
		case "you":
			you = v
		}
	}
	var snakes sdk.JSON
	for name, v := range board.Fields() {
		switch name {
		case "width":
			s.Set.Width = v.Int()
		case "height":
			s.Set.Height = v.Int()
		case "food":
			for _, f := range v.Elems() {
				s.Food = append(s.Food, readPoint(f))
			}
		case "snakes":
			snakes = v
		}
	}
	if s.Set.Width < 1 || s.Set.Height < 1 || s.Set.Width > 64 || s.Set.Height > 64 {
		return nil, 0, fmt.Errorf("a board of %dx%d", s.Set.Width, s.Set.Height)
	}
	for _, o := range snakes.Elems() {
		var id string
		sn := Snake{}
		for name, v := range o.Fields() {
			switch name {
			case "id":
				id = v.Str()
			case "health":
				sn.Health = v.Int()
			case "shout":
				sn.Shout = v.Str()
			case "body":
				for _, p := range v.Elems() {
					sn.Body = append(sn.Body, readPoint(p))
				}
			}
		}
		seat, err := seatOf(id)
		if err != nil {
			return nil, 0, err
		}
		for len(s.Snakes) <= seat {
			s.Snakes = append(s.Snakes, Snake{Out: 1, Cause: "before"})
		}
		if len(sn.Body) == 0 || s.Snakes[seat].Out == 0 {
			return nil, 0, fmt.Errorf("snake %d: no body, or listed twice", seat)
		}
		s.Snakes[seat] = sn
	}
	seat, err := seatOf(you.Get("id").Str())
	if err != nil {
		return nil, 0, err
	}
	if seat >= len(s.Snakes) || !s.Snakes[seat].Alive() {
		return nil, 0, errors.New("you are not on the board")
	}
	s.N = len(s.Snakes)
	s.refreshAsked()
	return &s, seat, nil
}

// readPoint reads {"x":..,"y":..}.
func readPoint(p sdk.JSON) Point {
	var q Point
	for name, v := range p.Fields() {
		switch name {
		case "x":
			q.X = v.Int()
		case "y":
			q.Y = v.Int()
		}
	}
	return q
}

func seatOf(id string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "seat-"))
	if err != nil || n < 0 || n >= 8 || !strings.HasPrefix(id, "seat-") {
		return 0, fmt.Errorf("snake id %q: want seat-0 to seat-7", id)
	}
	return n, nil
}
