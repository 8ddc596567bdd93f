package dotsandboxes

import "github.com/arenabots/arena/game"

// The methods the shared conformance suite (game/gametest) checks the game
// with, beside game.State.

// Clone returns an independent copy: the state is a plain value.
func (s *State) Clone() game.State {
	c := *s
	return &c
}

// Validate is the verdict Apply would give seat's answer now, without
// applying it.
func (s *State) Validate(seat int, answer []byte) game.Verdict {
	if s.Over() {
		return game.Verdict{}
	}
	if seat != int(s.ToMove) {
		return game.Verdict{Status: game.Ignored}
	}
	e, status, reason := s.ParseAction(answer)
	if e == NoEdge {
		e = s.FirstUndrawn()
	}
	return game.Verdict{Status: status, Action: e.AppendJSON(nil), Reason: reason}
}

// LegalAnswers lists every edge the mover may draw, in canonical form; the
// other seat's answer is never applied, so it has none.
func (s *State) LegalAnswers(seat int) [][]byte {
	if s.Over() || seat != int(s.ToMove) {
		return nil
	}
	var out [][]byte
	for e := Edge(0); e < NumEdges; e++ {
		if !s.IsDrawn(e) {
			out = append(out, e.AppendJSON(nil))
		}
	}
	return out
}

// Observation is the observation object, typed: what AppendObservation
// writes, field for field.
type Observation struct {
	You    int      `json:"you"`
	ToMove int      `json:"to_move"`
	Rows   int      `json:"rows"`
	Cols   int      `json:"cols"`
	H      [][]bool `json:"h"`
	V      [][]bool `json:"v"`
	Owner  [][]int  `json:"owner"`
	Scores []int    `json:"scores"`
	Turn   int      `json:"turn"`
	Nonce  int64    `json:"nonce"`
}

// NewObservation returns an empty typed observation to decode into.
func (s *State) NewObservation() any { return new(Observation) }
