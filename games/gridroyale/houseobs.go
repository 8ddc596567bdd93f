package gridroyale

// What the house's wasm ladder entries need of the game (internal/housebots):
// which house bots play there, and how to read an observation back into a
// State that the native house bot can be asked with.
//
// The observation is read in one pass with a parser of its own rather than with
// sdk.JSON, whose lazy scanning passes over the ore map three times (once
// to find where each field ends, once to find where the array ends, once to
// read it): the map is most of a 5 KB observation, and under cost model 4
// (docs/fuel.md) every byte looked at costs a metered memory access, dear in
// the few MiB of a Go bot's memory. The state's slices are kept from one
// observation to the next, so that reading a turn allocates next to nothing
// and the garbage collector, whose work is memory accesses too, rarely runs.

import (
	"errors"
	"fmt"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/sdk"
)

var errSyntax = errors.New("the observation is not the JSON expected")

// Ladder lists the house bots on the rated ladder, weakest first.
func (Game) Ladder() []game.LadderEntry {
	return []game.LadderEntry{{Name: "idle"}, {Name: "harvester"}, {Name: "house"}, {Name: "siege"}}
}

// HouseReserve is the fuel a wasm house bot keeps for finishing an answer
// once told to stop (hostplay.Reserver): settling its units' moves and
// writing the batch, a few hundred thousand, and a garbage collection,
// rare since the decoder reuses its state. It is less than hostplay's
// 2,500,000 because the first answer has only one turn's 5,000,000, and
// the first home field needs about 3,000,000 of it (with the observation):
// a field cut short there sends the first unit elsewhere than the native
// bot's, and the whole match goes another way.
func (Game) HouseReserve() int64 { return 1_500_000 }

// HouseDecoder returns what reads a Grid Royale observation into a
// state's exported fields, which are all the house bots read (a seat is out
// once it has no unit and cannot pay for one: the rules' elimination, which
// never undoes). It reads every observation into the same state, reusing
// its slices, so it serves one bot: the house bots read the state only
// while answering (what they remember lives in their own fields), so the
// next observation may overwrite it.
func (Game) HouseDecoder() func(sdk.JSON) (game.State, int, error) {
	s := new(State)
	return func(obs sdk.JSON) (game.State, int, error) { return decode(s, obs) }
}

// The kinds of object whose fields decode sets.
const (
	inZone = iota
	inBase
	inUnit
	inParams
)

// target is where the fields of the object being read go.
type target struct {
	s    *State
	kind int
}

func decode(s *State, obs sdk.JSON) (game.State, int, error) {
	b := []byte(obs)
	*s = State{Ore: s.Ore[:0], Bases: s.Bases[:0], Banks: s.Banks[:0], Units: s.Units[:0],
		Out: s.Out[:0], BankedAt: s.BankedAt[:0], NextID: 1}
	var you, w int
	var err error
	i := space(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, 0, errSyntax
	}
	for i = space(b, i+1); i < len(b) && b[i] != '}'; {
		var key []byte
		if key, i, err = field(b, i); err != nil {
			return nil, 0, err
		}
		switch string(key) {
		case "turn":
			s.TurnNum, i, err = integer(b, i)
		case "you":
			you, i, err = integer(b, i)
		case "width":
			w, i, err = integer(b, i)
		case "safe_zone":
			i, err = object(b, i, target{s, inZone})
		case "ore":
			s.Ore, i, err = ints(b, i, s.Ore)
		case "banks":
			s.Banks, i, err = ints(b, i, s.Banks)
		case "bases":
			i, err = objects(b, i, target{s, inBase})
		case "units":
			i, err = objects(b, i, target{s, inUnit})
		case "params":
			i, err = object(b, i, target{s, inParams})
		default:
			i, err = skip(b, i)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%q: %w", key, err)
		}
		if i = space(b, i); i < len(b) && b[i] == ',' {
			i = space(b, i+1)
		} else if i >= len(b) || b[i] != '}' {
			return nil, 0, errSyntax
		}
	}
	if i >= len(b) {
		return nil, 0, errSyntax
	}
	if err := finish(s, w, you); err != nil {
		return nil, 0, err
	}
	return s, you, nil
}

// begin makes room for the next object of an array: a base is read as an
// (owner, x, y) triple, made into a cell by finish.
func (t target) begin() {
	switch t.kind {
	case inBase:
		t.s.Bases = append(t.s.Bases, -1, 0, 0)
	case inUnit:
		t.s.Units = append(t.s.Units, Unit{})
	}
}

// set sets the field k of the object being read to v.
func (t target) set(k []byte, v int) {
	s := t.s
	switch t.kind {
	case inZone:
		switch string(k) {
		case "x0":
			s.Zone.X0 = v
		case "y0":
			s.Zone.Y0 = v
		case "x1":
			s.Zone.X1 = v
		case "y1":
			s.Zone.Y1 = v
		}
	case inBase:
		n := len(s.Bases)
		switch string(k) {
		case "owner":
			s.Bases[n-3] = v
		case "x":
			s.Bases[n-2] = v
		case "y":
			s.Bases[n-1] = v
		}
	case inUnit:
		u := &s.Units[len(s.Units)-1]
		switch string(k) {
		case "id":
			u.ID = v
		case "owner":
			u.Owner = v
		case "x":
			u.X = v
		case "y":
			u.Y = v
		case "cargo":
			u.Cargo = v
		}
	case inParams:
		param(s, k, v)
	}
}

// param sets the parameter named k.
func param(s *State, k []byte, v int) {
	p := &s.Set
	switch string(k) {
	case "cargo_cap":
		p.CargoCap = v
	case "spawn_cost":
		p.SpawnCost = v
	case "move_cost_divisor":
		p.MoveCostDivisor = v
	case "harvest_divisor":
		p.HarvestDivisor = v
	case "units_cap":
		p.UnitsCap = v
	case "grid_side":
		p.GridSide = v
	case "players":
		s.N = v
	case "max_turns":
		p.MaxTurns = v
	case "shrink_interval":
		p.ShrinkInterval = v
	case "min_zone":
		p.MinZone = v
	}
}

// finish checks what was read and derives the rest of the state. The bases
// were read as (owner, x, y) triples.
func finish(s *State, w, you int) error {
	s.W = w
	if w < 1 || w > 64 || s.N < 1 || s.N > 8 || you < 0 || you >= s.N {
		return fmt.Errorf("a %d-wide grid for %d players, seat %d", w, s.N, you)
	}
	if len(s.Ore) != w*w {
		return fmt.Errorf("ore holds %d cells, want %d", len(s.Ore), w*w)
	}
	triples := s.Bases
	s.Bases = make([]int, s.N)
	for k := 0; k+2 < len(triples); k += 3 {
		o, x, y := triples[k], triples[k+1], triples[k+2]
		if o < 0 || o >= s.N || x < 0 || x >= w || y < 0 || y >= w {
			return fmt.Errorf("base %d at (%d, %d) is off the grid", o, x, y)
		}
		s.Bases[o] = y*w + x
	}
	if len(s.Banks) != s.N {
		return fmt.Errorf("%d banks for %d players", len(s.Banks), s.N)
	}
	var count [8]int
	for k := range s.Units {
		x := &s.Units[k]
		if x.Owner < 0 || x.Owner >= s.N || x.X < 0 || x.X >= w || x.Y < 0 || x.Y >= w {
			return fmt.Errorf("unit %d of seat %d at (%d, %d) is off the grid", x.ID, x.Owner, x.X, x.Y)
		}
		if k > 0 && s.Units[k-1].ID >= x.ID {
			return fmt.Errorf("unit %d is out of id order", x.ID)
		}
		count[x.Owner]++
		s.NextID = x.ID + 1
	}
	for seat := range s.N {
		s.Out = append(s.Out, count[seat] == 0 && s.Banks[seat] < s.Set.SpawnCost)
		s.BankedAt = append(s.BankedAt, 0)
	}
	return nil
}

func space(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// field reads `"key":` at i and returns the key's bytes as written and the
// index of the value.
func field(b []byte, i int) ([]byte, int, error) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, errSyntax
	}
	start := i + 1
	end, err := skip(b, i)
	if err != nil {
		return nil, i, err
	}
	key := b[start : end-1]
	if i = space(b, end); i >= len(b) || b[i] != ':' {
		return nil, i, errSyntax
	}
	return key, space(b, i+1), nil
}

// integer reads a number at i (true counts 1, false and null 0).
func integer(b []byte, i int) (int, int, error) {
	neg := i < len(b) && b[i] == '-'
	j := i
	if neg {
		j++
	}
	n, start := 0, j
	for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
		n = n*10 + int(b[j]-'0')
	}
	if j == start {
		end, err := skip(b, i)
		if err != nil {
			return 0, i, err
		}
		if string(b[i:end]) == "true" {
			return 1, end, nil
		}
		return 0, end, nil
	}
	if neg {
		n = -n
	}
	return n, j, nil
}

// ints appends to dst the integers of the array at i, nested arrays
// flattened in order (so ore[y][x] lands at y*width+x), and returns the
// index after the array. Anything but integers and arrays is refused.
func ints(b []byte, i int, dst []int) ([]int, int, error) {
	depth := 0
	for i < len(b) {
		switch c := b[i]; {
		case c == '[':
			depth++
			i++
		case c == ']':
			depth--
			i++
			if depth == 0 {
				return dst, i, nil
			}
		case depth == 0:
			return dst, i, errSyntax
		case c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r':
			i++
		case c == '-' || (c >= '0' && c <= '9'):
			neg := c == '-'
			if neg {
				i++
			}
			n := 0
			for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
				n = n*10 + int(b[i]-'0')
			}
			if neg {
				n = -n
			}
			dst = append(dst, n)
		default:
			return dst, i, errSyntax
		}
	}
	return dst, i, errSyntax
}

// object reads the object at i into t, every field whose value is a number
// (other values are skipped), and returns the index after it.
func object(b []byte, i int, t target) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return i, errSyntax
	}
	for i = space(b, i+1); i < len(b) && b[i] != '}'; {
		key, j, err := field(b, i)
		if err != nil {
			return j, err
		}
		if j < len(b) && (b[j] == '-' || (b[j] >= '0' && b[j] <= '9')) {
			var v int
			v, i, _ = integer(b, j)
			t.set(key, v)
		} else if i, err = skip(b, j); err != nil {
			return i, err
		}
		if i = space(b, i); i < len(b) && b[i] == ',' {
			i = space(b, i+1)
		} else if i >= len(b) || b[i] != '}' {
			return i, errSyntax
		}
	}
	if i >= len(b) {
		return i, errSyntax
	}
	return i + 1, nil
}

// objects reads the array of objects at i into t, one after the other.
func objects(b []byte, i int, t target) (int, error) {
	if i >= len(b) || b[i] != '[' {
		return i, errSyntax
	}
	var err error
	for i = space(b, i+1); i < len(b) && b[i] != ']'; {
		t.begin()
		if i, err = object(b, i, t); err != nil {
			return i, err
		}
		if i = space(b, i); i < len(b) && b[i] == ',' {
			i = space(b, i+1)
		} else if i >= len(b) || b[i] != ']' {
			return i, errSyntax
		}
	}
	if i >= len(b) {
		return i, errSyntax
	}
	return i + 1, nil
}

// skip returns the index after the value at i: a string, a scalar, or an
// object or array, nested to any depth (counted, not recursed).
func skip(b []byte, i int) (int, error) {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			i++
		case '{', '[':
			depth++
			i++
			continue
		case '}', ']':
			depth--
			i++
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i, errSyntax
			}
			i++
			continue
		default:
			for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ':' &&
				b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' && b[i] != '"' {
				i++
			}
		}
		if depth < 0 {
			return i, errSyntax
		}
		if depth == 0 {
			if i > len(b) {
				return len(b), errSyntax
			}
			return i, nil
		}
	}
	return i, errSyntax
}
