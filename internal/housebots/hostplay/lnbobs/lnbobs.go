// Package lnbobs reads Lines and Boxes observations for the wasm house bots (hostplay).
package lnbobs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/linesandboxes"
	"github.com/arenabots/arena/sdk"
)

// Decode replays the observation's move list (pre-drawn lines first,
// then the players') on a fresh board of its size: the state's fields are
// the game's own, and the list is the whole history.
func Decode(obs sdk.JSON) (game.State, int, error) {
	rows, cols := obs.Get("rows").Int(), obs.Get("cols").Int()
	var pre []string
	var played []linesandboxes.Segment
	for i, m := range obs.Get("moves").Elems() {
		from, err := linesandboxes.ParseVertex(m.Get("from").Str())
		if err != nil {
			return nil, 0, fmt.Errorf("move %d: %w", i, err)
		}
		to, err := linesandboxes.ParseVertex(m.Get("to").Str())
		if err != nil {
			return nil, 0, fmt.Errorf("move %d: %w", i, err)
		}
		seg := linesandboxes.NewSegment(from, to)
		if m.Get("player").Int() < 0 {
			if len(played) > 0 {
				return nil, 0, fmt.Errorf("move %d: a pre-drawn line after the players' moves", i)
			}
			pre = append(pre, seg.From.String()+"-"+seg.To.String())
			continue
		}
		played = append(played, seg)
	}
	s, err := linesandboxes.NewState(0, game.Params{
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
