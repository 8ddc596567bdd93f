package gridroyale

import (
	"slices"

	"github.com/arenabots/arena/game"
)

// The methods the shared conformance suite (game/gametest) checks the game
// with, beside game.State.

// Clone returns an independent copy, scratch space included.
func (s *State) Clone() game.State {
	c := *s
	c.Ore = slices.Clone(s.Ore)
	c.Bases = slices.Clone(s.Bases)
	c.Banks = slices.Clone(s.Banks)
	c.Units = slices.Clone(s.Units)
	c.Out = slices.Clone(s.Out)
	c.BankedAt = slices.Clone(s.BankedAt)
	c.orders = slices.Clone(s.orders)
	c.noHarv = slices.Clone(s.noHarv)
	c.dead = slices.Clone(s.dead)
	c.refund = slices.Clone(s.refund)
	c.seen = slices.Clone(s.seen)
	c.cellCnt = slices.Clone(s.cellCnt)
	c.cellMask = slices.Clone(s.cellMask)
	c.onBase = slices.Clone(s.onBase)
	c.count = slices.Clone(s.count)
	c.refusals = slices.Clone(s.refusals)
	c.asked = slices.Clone(s.asked)
	return &c
}

// Validate is the verdict Apply would give seat's answer now, without
// applying it (it uses only the scratch space Step resets).
func (s *State) Validate(seat int, answer []byte) game.Verdict {
	if s.Over || s.Out[seat] {
		return game.Verdict{}
	}
	b, err := ParseBatch(answer)
	if err != nil {
		return game.Verdict{Status: game.Malformed, Action: noAction, Reason: err.Error()}
	}
	if r := s.validate(seat, &b); r.Status != "" {
		return game.Verdict{Status: r.Status, Action: noAction, Reason: r.Reason}
	}
	return game.Verdict{Status: game.OK, Action: AppendBatch(nil, &b)}
}

// LegalAnswers lists, for seat, the batch without orders, with a spawn, and
// every single order of each of its units that stays on the grid: batches
// combine these, so all of them cannot be listed.
func (s *State) LegalAnswers(seat int) [][]byte {
	if s.Over || s.Out[seat] {
		return nil
	}
	out := [][]byte{[]byte(`{"orders":[]}`), []byte(`{"orders":[],"spawn":true}`)}
	for _, u := range s.Units {
		if u.Owner != seat {
			continue
		}
		for d := Dir(0); d <= West; d++ {
			nx, ny := u.X+dx[d], u.Y+dy[d]
			if nx < 0 || ny < 0 || nx >= s.W || ny >= s.W {
				continue
			}
			b := Batch{Orders: []Order{{Unit: u.ID, Do: d}}}
			out = append(out, AppendBatch(nil, &b))
		}
	}
	return out
}

// Observation is the observation object, typed: what AppendObservation
// writes, field for field.
type Observation struct {
	Turn     int       `json:"turn"`
	MaxTurns int       `json:"max_turns"`
	You      int       `json:"you"`
	Width    int       `json:"width"`
	Height   int       `json:"height"`
	SafeZone ObsZone   `json:"safe_zone"`
	Ore      [][]int   `json:"ore"`
	Bases    []ObsBase `json:"bases"`
	Banks    []int     `json:"banks"`
	Units    []ObsUnit `json:"units"`
	Params   ObsParams `json:"params"`
}

// ObsZone is the safe zone, corners included.
type ObsZone struct {
	X0 int `json:"x0"`
	Y0 int `json:"y0"`
	X1 int `json:"x1"`
	Y1 int `json:"y1"`
}

// ObsBase is one seat's base.
type ObsBase struct {
	Owner int `json:"owner"`
	X     int `json:"x"`
	Y     int `json:"y"`
}

// ObsUnit is one living unit.
type ObsUnit struct {
	ID    int `json:"id"`
	Owner int `json:"owner"`
	X     int `json:"x"`
	Y     int `json:"y"`
	Cargo int `json:"cargo"`
}

// ObsParams are the match parameters in force.
type ObsParams struct {
	CargoCap        int `json:"cargo_cap"`
	SpawnCost       int `json:"spawn_cost"`
	MoveCostDivisor int `json:"move_cost_divisor"`
	HarvestDivisor  int `json:"harvest_divisor"`
	UnitsCap        int `json:"units_cap"`
	GridSide        int `json:"grid_side"`
	Players         int `json:"players"`
	MaxTurns        int `json:"max_turns"`
	ShrinkInterval  int `json:"shrink_interval"`
	MinZone         int `json:"min_zone"`
}

// NewObservation returns an empty typed observation to decode into.
func (s *State) NewObservation() any { return new(Observation) }
