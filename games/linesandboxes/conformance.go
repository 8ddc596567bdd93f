package linesandboxes

import (
	"maps"
	"slices"

	"github.com/arenabots/arena/game"
)

// The methods the shared conformance suite (game/gametest) checks the game
// with, beside game.State.

// Clone returns an independent copy; the geometry is shared, it never changes.
func (s *State) Clone() game.State {
	c := *s
	c.owner = slices.Clone(s.owner)
	c.moves = slices.Clone(s.moves)
	c.params = maps.Clone(s.params)
	return &c
}

// Validate is the verdict Apply would give seat's answer now, without
// applying it.
func (s *State) Validate(seat int, answer []byte) game.Verdict {
	if s.Done() || seat != s.toMove {
		return game.Verdict{}
	}
	seg := s.DefaultMove()
	v := game.Verdict{Status: game.OK}
	if asked, err := ParseAction(answer); err != nil {
		v.Status, v.Reason = game.Malformed, err.Error()
	} else if err := s.Check(asked); err != nil {
		v.Status, v.Reason = game.Illegal, err.Error()
	} else {
		seg = asked
	}
	v.Action = ActionJSON(seg)
	return v
}

// LegalAnswers lists every line the mover may draw, in canonical form.
func (s *State) LegalAnswers(seat int) [][]byte {
	if s.Done() || seat != s.toMove {
		return nil
	}
	var out [][]byte
	s.g.forEachMove(&s.drawn, func(l *line, a, b int) {
		out = append(out, ActionJSON(s.g.lineSegment(l, a, b)))
	})
	return out
}

// NewObservation returns an empty typed observation to decode into.
func (s *State) NewObservation() any { return new(Observation) }
