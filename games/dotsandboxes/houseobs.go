package dotsandboxes

// What the house's wasm ladder entries need of the game (internal/housebots):
// which house bots play there, and how to read an observation back into a
// State that the native house bot can be asked with.

import (
	"errors"
	"fmt"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/sdk"
)

// Ladder lists the house bots on the rated ladder, weakest first; the
// strongest is the C search kit, builtin:search's engine ported to C,
// thinking until its fuel is spent: C's wasm output spends a small part of
// the fuel Go's does on the same search (docs/bots-strength.md).
func (Game) Ladder() []game.LadderEntry {
	return []game.LadderEntry{
		{Name: "random"}, {Name: "greedy"}, {Name: "beginner"}, {Name: "chains"}, {Name: "search-easy"},
		{Name: "search", Kit: "c/dots-and-boxes-search"},
	}
}

// HouseDecoder returns what reads an observation for a wasm house bot.
func (Game) HouseDecoder() func(sdk.JSON) (game.State, int, error) { return decodeObservation }

// decodeObservation reads a Dots and Boxes observation: the drawn edges ("h" then
// "v", flattened, are the edges in the game's order), the boxes' owners, the
// mover and the nonce the house bots fold into their randomness.
func decodeObservation(obs sdk.JSON) (game.State, int, error) {
	const rows, cols = Rows, Cols
	if obs.Get("rows").Int() != rows || obs.Get("cols").Int() != cols {
		return nil, 0, fmt.Errorf("not a %dx%d board", rows, cols)
	}
	h := obs.Get("h").Ints(make([]int, 0, NumEdges))
	if len(h) != NumH {
		return nil, 0, fmt.Errorf("h holds %d edges, want %d", len(h), NumH)
	}
	edges := obs.Get("v").Ints(h)
	if len(edges) != NumEdges {
		return nil, 0, fmt.Errorf("v holds %d edges, want %d", len(edges)-NumH, NumV)
	}
	owner := obs.Get("owner").Ints(make([]int, 0, rows*cols))
	if len(owner) != rows*cols {
		return nil, 0, fmt.Errorf("owner holds %d boxes, want %d", len(owner), rows*cols)
	}
	you, toMove := obs.Get("you").Int(), obs.Get("to_move").Int()
	if you < 0 || you > 1 || toMove < 0 || toMove > 1 {
		return nil, 0, errors.New("seats are 0 and 1")
	}
	s := NewState(int64(obs.Get("nonce").Int()))
	for i, d := range edges {
		if d != 0 {
			s.Drawn |= 1 << uint(i)
		}
	}
	for b, o := range owner {
		if o == 0 || o == 1 {
			s.Owned[o] |= 1 << uint(b)
		}
	}
	s.ToMove = int8(toMove)
	return s, you, nil
}
