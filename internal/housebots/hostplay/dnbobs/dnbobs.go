// Package dnbobs reads Dots and Boxes observations for the wasm house bots (hostplay).
package dnbobs

import (
	"errors"
	"fmt"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/sdk"
)

// Decode reads a Dots and Boxes observation: the drawn edges ("h" then
// "v", flattened, are the edges in the game's order), the boxes' owners, the
// mover and the nonce the house bots fold into their randomness.
func Decode(obs sdk.JSON) (game.State, int, error) {
	const rows, cols = dotsandboxes.Rows, dotsandboxes.Cols
	if obs.Get("rows").Int() != rows || obs.Get("cols").Int() != cols {
		return nil, 0, fmt.Errorf("not a %dx%d board", rows, cols)
	}
	h := obs.Get("h").Ints(make([]int, 0, dotsandboxes.NumEdges))
	if len(h) != dotsandboxes.NumH {
		return nil, 0, fmt.Errorf("h holds %d edges, want %d", len(h), dotsandboxes.NumH)
	}
	edges := obs.Get("v").Ints(h)
	if len(edges) != dotsandboxes.NumEdges {
		return nil, 0, fmt.Errorf("v holds %d edges, want %d", len(edges)-dotsandboxes.NumH, dotsandboxes.NumV)
	}
	owner := obs.Get("owner").Ints(make([]int, 0, rows*cols))
	if len(owner) != rows*cols {
		return nil, 0, fmt.Errorf("owner holds %d boxes, want %d", len(owner), rows*cols)
	}
	you, toMove := obs.Get("you").Int(), obs.Get("to_move").Int()
	if you < 0 || you > 1 || toMove < 0 || toMove > 1 {
		return nil, 0, errors.New("seats are 0 and 1")
	}
	s := dotsandboxes.NewState(int64(obs.Get("nonce").Int()))
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
