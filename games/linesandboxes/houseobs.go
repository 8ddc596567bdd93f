package linesandboxes

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
	return []game.LadderEntry{{Name: "random"}, {Name: "greedy"}, {Name: "search"}, {Name: "search-deep"}, {Name: "strong"}}
}

// HouseDecoder returns what reads an observation for a wasm house bot.
func (Game) HouseDecoder() func(sdk.JSON) (game.State, int, error) { return decodeObservation }

// decodeObservation replays the observation's move list (pre-drawn lines first,
// then the players') on a fresh board of its size: the state's fields are
// the game's own, and the list is the whole history.
func decodeObservation(obs sdk.JSON) (game.State, int, error) {
	rows, cols := obs.Get("rows").Int(), obs.Get("cols").Int()
	var pre []string
	var played []Segment
	for i, m := range obs.Get("moves").Elems() {
		from, err := ParseVertex(m.Get("from").Str())
		if err != nil {
			return nil, 0, fmt.Errorf("move %d: %w", i, err)
		}
		to, err := ParseVertex(m.Get("to").Str())
		if err != nil {
			return nil, 0, fmt.Errorf("move %d: %w", i, err)
		}
		seg := NewSegment(from, to)
		if m.Get("player").Int() < 0 {
			if len(played) > 0 {
				return nil, 0, fmt.Errorf("move %d: a pre-drawn line after the players' moves", i)
			}
			pre = append(pre, seg.From.String()+"-"+seg.To.String())
			continue
		}
		played = append(played, seg)
	}
	s, err := NewState(0, game.Params{
		"rows": strconv.Itoa(rows), "cols": strconv.Itoa(cols), "board": strings.Join(pre, ","), "predrawn": "0"})
	if err != nil {
		return nil, 0, err
	}
	for i, seg := range played {
		if err := s.Play(seg); err != nil {
			return nil, 0, fmt.Errorf("move %d: %w", len(pre)+i, err)
		}
	}
	you := obs.Get("you").Int()
	if you < 0 || you > 1 {
		return nil, 0, errors.New("seats are 0 and 1")
	}
	if s.Turn() != obs.Get("turn").Int() {
		return nil, 0, fmt.Errorf("the moves make turn %d, the observation says %d", s.Turn(), obs.Get("turn").Int())
	}
	return s, you, nil
}
