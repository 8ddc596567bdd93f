package gridroyale

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/arenabots/arena/game"
)

// The answer as it travels: both fields optional (pointers), each order's
// fields required.
type wireBatch struct {
	Orders *[]wireOrder `json:"orders"`
	Spawn  *bool        `json:"spawn"`
}

type wireOrder struct {
	Unit int64  `json:"unit"`
	Do   string `json:"do"`
}

// ParseBatch reads one answer line: {"orders":[{"unit":12,"do":"MOVE_N"}],
// "spawn":true}. Both fields are optional, other fields are ignored, and the
// protocol's strict rules apply (game.Decode): an error means the line is
// malformed. Whether the orders are legal is Step's business.
func ParseBatch(line []byte) (Batch, error) {
	var wb wireBatch
	if err := game.Decode(line, &wb); err != nil {
		return Batch{}, fmt.Errorf("not a batch: %w", err)
	}
	var orders []wireOrder
	if wb.Orders != nil {
		orders = *wb.Orders
	}
	b := Batch{Orders: make([]Order, 0, len(orders))}
	if wb.Spawn != nil {
		b.Spawn = *wb.Spawn
	}
	for i, o := range orders {
		d, ok := parseDir(o.Do)
		if !ok {
			return Batch{}, fmt.Errorf("order %d: %q is not one of MOVE_N, MOVE_E, MOVE_S, MOVE_W, STAY", i, o.Do)
		}
		id := int(o.Unit)
		if int64(id) != o.Unit { // does not fit an int here: no such unit
			id = -1
		}
		b.Orders = append(b.Orders, Order{Unit: id, Do: d})
	}
	return b, nil
}

func parseDir(s string) (Dir, bool) {
	for d, name := range dirNames {
		if s == name {
			return Dir(d), true
		}
	}
	return 0, false
}

// AppendBatch appends b as canonical compact JSON: orders sorted by unit id,
// "spawn" only when true. It sorts b.Orders in place.
func AppendBatch(dst []byte, b *Batch) []byte {
	slices.SortStableFunc(b.Orders, func(p, q Order) int { return p.Unit - q.Unit })
	dst = append(dst, `{"orders":[`...)
	for i, o := range b.Orders {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"unit":`...)
		dst = strconv.AppendInt(dst, int64(o.Unit), 10)
		dst = append(dst, `,"do":"`...)
		dst = append(dst, o.Do.String()...)
		dst = append(dst, `"}`...)
	}
	dst = append(dst, ']')
	if b.Spawn {
		dst = append(dst, `,"spawn":true`...)
	}
	return append(dst, '}')
}

// noAction is the canonical batch of a turn without orders.
var noAction = json.RawMessage(`{"orders":[]}`)

// Apply resolves one turn from the seats' answer lines. A missing answer
// (nil) is a turn without orders; a malformed or illegal one too, with the
// reason in the verdict.
func (s *State) Apply(answers [][]byte) []game.Verdict {
	verdicts := make([]game.Verdict, s.N)
	if s.Over {
		return verdicts
	}
	batches := make([]*Batch, s.N)
	for seat := 0; seat < s.N; seat++ {
		if s.Out[seat] {
			continue
		}
		verdicts[seat].Action = noAction
		if seat >= len(answers) || answers[seat] == nil {
			continue
		}
		b, err := ParseBatch(answers[seat])
		if err != nil {
			verdicts[seat].Status = game.Malformed
			verdicts[seat].Reason = err.Error()
			continue
		}
		batches[seat] = &b
		verdicts[seat].Status = game.OK
		verdicts[seat].Action = AppendBatch(nil, &b)
	}
	refusals := s.Step(batches)
	for seat, r := range refusals {
		if r.Status != "" {
			verdicts[seat] = game.Verdict{Status: r.Status, Action: noAction, Reason: r.Reason}
		}
	}
	return verdicts
}

// AppendObservation appends seat's observation, field for field as the rules
// page shows it. params carries every parameter of the page's table.
func (s *State) AppendObservation(dst []byte, seat int) []byte {
	dst = appendField(dst, `{"turn":`, s.TurnNum)
	dst = appendField(dst, `,"max_turns":`, s.Set.MaxTurns)
	dst = appendField(dst, `,"you":`, seat)
	dst = appendField(dst, `,"width":`, s.W)
	dst = appendField(dst, `,"height":`, s.W)
	dst = appendField(dst, `,"safe_zone":{"x0":`, s.Zone.X0)
	dst = appendField(dst, `,"y0":`, s.Zone.Y0)
	dst = appendField(dst, `,"x1":`, s.Zone.X1)
	dst = appendField(dst, `,"y1":`, s.Zone.Y1)
	dst = append(dst, `},"ore":[`...)
	for y := 0; y < s.W; y++ {
		if y > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '[')
		for x, o := range s.Ore[y*s.W : (y+1)*s.W] {
			if x > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, int64(o), 10)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `],"bases":[`...)
	for i, b := range s.Bases {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendField(dst, `{"owner":`, i)
		dst = appendField(dst, `,"x":`, b%s.W)
		dst = appendField(dst, `,"y":`, b/s.W)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"banks":[`...)
	for i, b := range s.Banks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(b), 10)
	}
	dst = append(dst, `],"units":[`...)
	for i := range s.Units {
		u := &s.Units[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendField(dst, `{"id":`, u.ID)
		dst = appendField(dst, `,"owner":`, u.Owner)
		dst = appendField(dst, `,"x":`, u.X)
		dst = appendField(dst, `,"y":`, u.Y)
		dst = appendField(dst, `,"cargo":`, u.Cargo)
		dst = append(dst, '}')
	}
	p := &s.Set
	dst = appendField(dst, `],"params":{"cargo_cap":`, p.CargoCap)
	dst = appendField(dst, `,"spawn_cost":`, p.SpawnCost)
	dst = appendField(dst, `,"move_cost_divisor":`, p.MoveCostDivisor)
	dst = appendField(dst, `,"harvest_divisor":`, p.HarvestDivisor)
	dst = appendField(dst, `,"units_cap":`, p.UnitsCap)
	dst = appendField(dst, `,"grid_side":`, p.GridSide)
	dst = appendField(dst, `,"players":`, s.N)
	dst = appendField(dst, `,"max_turns":`, p.MaxTurns)
	dst = appendField(dst, `,"shrink_interval":`, p.ShrinkInterval)
	dst = appendField(dst, `,"min_zone":`, p.MinZone)
	return append(dst, "}}"...)
}

func appendField(dst []byte, prefix string, v int) []byte {
	return strconv.AppendInt(append(dst, prefix...), int64(v), 10)
}
