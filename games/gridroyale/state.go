package gridroyale

import (
	"fmt"
	"sort"

	"github.com/arenabots/arena/game"
)

// Dir is one unit order.
type Dir uint8

// The five orders. Stay is the zero value, so a unit with no order stays.
const (
	Stay Dir = iota
	North
	East
	South
	West
)

var dirNames = [...]string{"STAY", "MOVE_N", "MOVE_E", "MOVE_S", "MOVE_W"}

func (d Dir) String() string {
	if int(d) < len(dirNames) {
		return dirNames[d]
	}
	return fmt.Sprintf("Dir(%d)", d)
}

// dx and dy are the steps of each Dir: north is y-1, east x+1.
var (
	dx = [...]int{0, 0, 1, 0, -1}
	dy = [...]int{0, -1, 0, 1, 0}
)

// Unit is one living unit.
type Unit struct {
	ID    int
	Owner int
	X, Y  int
	Cargo int
}

// Order is one unit's order in a batch.
type Order struct {
	Unit int
	Do   Dir
}

// Batch is one player's answer for one turn.
type Batch struct {
	Orders []Order
	Spawn  bool
}

// Zone is the safe zone, inclusive on both ends.
type Zone struct{ X0, Y0, X1, Y1 int }

// Contains reports whether (x, y) is inside the zone.
func (z Zone) Contains(x, y int) bool { return x >= z.X0 && x <= z.X1 && y >= z.Y0 && y <= z.Y1 }

// Refusal is what Step made of one seat's batch: Status is empty when the
// batch was applied, Illegal when it was refused (and the seat did nothing).
type Refusal struct {
	Status game.Status
	Reason string
}

// State is one match. Its exported fields are read by the house bots and the
// tests; only Step changes them.
type State struct {
	Set     Settings
	N       int // players
	W       int // grid side
	Ore     []int
	Bases   []int // cell index of each seat's base
	Banks   []int
	Units   []Unit // every living unit, in id order (the order of creation)
	Zone    Zone
	TurnNum int
	NextID  int
	Out     []bool // eliminated
	Over    bool

	// BankedAt[seat] is the turn at which the seat's bank last changed: the
	// "banked earlier" tie-break.
	BankedAt []int
	// SpentOnSpawns and LostToBorder are the ore that left the map and the
	// players' hands, so that conservation can be checked.
	SpentOnSpawns int
	LostToBorder  int

	// Scratch space, sized once, so that Step allocates nothing.
	orders   []Dir  // per unit index: this turn's order
	noHarv   []bool // per unit index: moved, or failed to move
	dead     []bool // per unit index: destroyed in this turn's collisions
	refund   []int  // per unit index: the move cost paid back onto the cell left
	seen     []int  // per unit index: the stamp of the last batch naming it
	cellCnt  []int  // per cell: units on it after the move phase
	cellMask []int  // per cell: bitmask of owners on it
	onBase   []bool // per seat
	count    []int  // per seat: living units
	refusals []Refusal
	asked    []int
	stamp    int
}

// NewState makes the starting position: the ore map, one unit on each base,
// a bank of StartBank each, the whole grid as the safe zone.
func NewState(set Settings, players int, seed uint64) *State {
	w := set.GridSide
	s := &State{
		Set:      set,
		N:        players,
		W:        w,
		Ore:      GenerateOre(seed, w, players),
		Bases:    make([]int, players),
		Banks:    make([]int, players),
		Zone:     Zone{0, 0, w - 1, w - 1},
		NextID:   1,
		Out:      make([]bool, players),
		BankedAt: make([]int, players),
		cellCnt:  make([]int, w*w),
		cellMask: make([]int, w*w),
		onBase:   make([]bool, players),
		count:    make([]int, players),
		refusals: make([]Refusal, players),
		asked:    make([]int, 0, players),
	}
	unitCap := players*set.UnitsCap + players
	s.Units = make([]Unit, 0, unitCap)
	s.orders = make([]Dir, unitCap)
	s.noHarv = make([]bool, unitCap)
	s.seen = make([]int, unitCap)
	s.refund = make([]int, unitCap)
	s.dead = make([]bool, unitCap)
	for seat := 0; seat < players; seat++ {
		x, y := BasePos(w, players, seat)
		s.Bases[seat] = y*w + x
		s.Banks[seat] = StartBank
		s.Units = append(s.Units, Unit{ID: s.NextID, Owner: seat, X: x, Y: y})
		s.NextID++
	}
	return s
}

// BasePos is where seat's base stands: one cell inside the corner of the
// final 8x8 zone, the other seats by the map's rotation.
func BasePos(w, players, seat int) (x, y int) {
	b := (w-8)/2 + 1
	x, y = b, b
	if players == 2 {
		if seat == 1 {
			x, y = w-1-b, w-1-b
		}
		return x, y
	}
	for i := 0; i < seat; i++ {
		x, y = w-1-y, x
	}
	return x, y
}

// UnitIndex finds the unit with id in s.Units (sorted by id), or -1.
func (s *State) UnitIndex(id int) int {
	lo, hi := 0, len(s.Units)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.Units[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.Units) && s.Units[lo].ID == id {
		return lo
	}
	return -1
}

// Alive reports whether seat is not eliminated.
func (s *State) Alive(seat int) bool { return !s.Out[seat] }

// UnitCount returns the number of living units of seat.
func (s *State) UnitCount(seat int) int {
	n := 0
	for i := range s.Units {
		if s.Units[i].Owner == seat {
			n++
		}
	}
	return n
}

// validate checks seat's batch and, when it is legal, writes its orders into
// s.orders. A refused batch writes nothing: all its units stay.
func (s *State) validate(seat int, b *Batch) Refusal {
	s.stamp++
	for _, o := range b.Orders {
		i := s.UnitIndex(o.Unit)
		if i < 0 || s.Units[i].Owner != seat {
			return Refusal{game.Illegal, fmt.Sprintf("unit %d is not a living unit of player %d", o.Unit, seat)}
		}
		if s.seen[i] == s.stamp {
			return Refusal{game.Illegal, fmt.Sprintf("unit %d has two orders", o.Unit)}
		}
		s.seen[i] = s.stamp
		if o.Do > West {
			return Refusal{game.Illegal, fmt.Sprintf("unit %d: unknown order %d", o.Unit, o.Do)}
		}
		u := &s.Units[i]
		nx, ny := u.X+dx[o.Do], u.Y+dy[o.Do]
		if nx < 0 || ny < 0 || nx >= s.W || ny >= s.W {
			return Refusal{game.Illegal, fmt.Sprintf("unit %d: %s from (%d,%d) leaves the grid", o.Unit, o.Do, u.X, u.Y)}
		}
	}
	for _, o := range b.Orders {
		s.orders[s.UnitIndex(o.Unit)] = o.Do
	}
	return Refusal{}
}

// Step resolves one turn. batches[seat] is the seat's batch, or nil for a
// seat with no answer; seats that are eliminated are ignored. It returns what
// became of each seat's batch, in a slice reused by the next Step.
func (s *State) Step(batches []*Batch) []Refusal {
	for i := range s.refusals {
		s.refusals[i] = Refusal{}
	}
	if s.Over {
		return s.refusals
	}
	n := len(s.Units)
	for i := 0; i < n; i++ {
		s.orders[i] = Stay
		s.noHarv[i] = false
	}
	spawn := 0 // bitmask of seats that ordered a spawn in a legal batch
	for seat := 0; seat < s.N && seat < len(batches); seat++ {
		b := batches[seat]
		if b == nil || s.Out[seat] {
			continue
		}
		r := s.validate(seat, b)
		s.refusals[seat] = r
		if r.Status == "" && b.Spawn {
			spawn |= 1 << seat
		}
	}
	s.moves()
	s.collide()
	s.harvest()
	s.bank()
	s.spawn(spawn)
	s.TurnNum++
	s.border()
	s.finish()
	return s.refusals
}

// moves is phase 1. Every cost is read from the ore before the phase, then
// paid back onto the cells the units left.
func (s *State) moves() {
	div := s.Set.MoveCostDivisor
	for i := range s.Units {
		d := s.orders[i]
		if d == Stay {
			continue
		}
		u := &s.Units[i]
		s.noHarv[i] = true
		cost := s.Ore[u.Y*s.W+u.X] / div
		if cost > u.Cargo {
			s.orders[i] = Stay // stays put; noHarv keeps it from harvesting
			continue
		}
		u.Cargo -= cost
		s.refund[i] = cost
	}
	for i := range s.Units {
		d := s.orders[i]
		if d == Stay {
			continue
		}
		u := &s.Units[i]
		s.Ore[u.Y*s.W+u.X] += s.refund[i]
		u.X += dx[d]
		u.Y += dy[d]
	}
}

// collide is phase 2: any cell with two or more units destroys them all and
// spills their cargo there, unless they all belong to the owner of the base
// they stand on.
func (s *State) collide() {
	w := s.W
	for i := range s.Units {
		c := s.Units[i].Y*w + s.Units[i].X
		s.cellCnt[c]++
		s.cellMask[c] |= 1 << s.Units[i].Owner
	}
	for i := range s.Units {
		u := &s.Units[i]
		c := u.Y*w + u.X
		s.dead[i] = s.cellCnt[c] > 1 && !(s.cellMask[c] == 1<<u.Owner && s.Bases[u.Owner] == c)
	}
	kept := 0
	for i := range s.Units {
		u := s.Units[i]
		c := u.Y*w + u.X
		s.cellCnt[c] = 0
		s.cellMask[c] = 0
		if s.dead[i] {
			s.Ore[c] += u.Cargo
			continue
		}
		s.Units[kept] = u
		s.noHarv[kept] = s.noHarv[i]
		kept++
	}
	s.Units = s.Units[:kept]
}

// harvest is phase 3. At most one unit can harvest a cell (two units on one
// cell survive only on their own base, where nobody harvests), so reading
// and writing the ore in one pass is the same as reading it before the phase.
func (s *State) harvest() {
	for i := range s.Units {
		u := &s.Units[i]
		c := u.Y*s.W + u.X
		if s.noHarv[i] || s.Bases[u.Owner] == c {
			continue
		}
		h := s.Ore[c] / s.Set.HarvestDivisor
		if room := s.Set.CargoCap - u.Cargo; h > room {
			h = room
		}
		if h > 0 {
			u.Cargo += h
			s.Ore[c] -= h
		}
	}
}

// bank is phase 4.
func (s *State) bank() {
	turn := s.TurnNum + 1
	for i := range s.Units {
		u := &s.Units[i]
		if s.Bases[u.Owner] != u.Y*s.W+u.X {
			continue
		}
		if u.Cargo > 0 {
			s.Banks[u.Owner] += u.Cargo
			s.BankedAt[u.Owner] = turn
			u.Cargo = 0
		}
	}
}

// spawn is phase 5, in seat order, so unit ids do not depend on anything else.
func (s *State) spawn(ordered int) {
	for seat := 0; seat < s.N; seat++ {
		s.onBase[seat] = false
		s.count[seat] = 0
	}
	for i := range s.Units {
		u := &s.Units[i]
		s.count[u.Owner]++
		if s.Bases[u.Owner] == u.Y*s.W+u.X {
			s.onBase[u.Owner] = true
		}
	}
	for seat := 0; seat < s.N; seat++ {
		if ordered&(1<<seat) == 0 || s.Banks[seat] < s.Set.SpawnCost ||
			s.count[seat] >= s.Set.UnitsCap || s.onBase[seat] {
			continue
		}
		s.Banks[seat] -= s.Set.SpawnCost
		s.SpentOnSpawns += s.Set.SpawnCost
		if s.Set.SpawnCost > 0 {
			s.BankedAt[seat] = s.TurnNum + 1
		}
		b := s.Bases[seat]
		s.Units = append(s.Units, Unit{ID: s.NextID, Owner: seat, X: b % s.W, Y: b / s.W})
		s.NextID++
	}
}

// border is phase 6: on a shrink turn the zone loses a ring, down to
// min_zone; then every unit outside the zone dies and its cargo is lost.
// The check runs every turn, so walking out of the zone is fatal too.
func (s *State) border() {
	z := &s.Zone
	if s.TurnNum%s.Set.ShrinkInterval == 0 && z.X1-z.X0+1 > s.Set.MinZone {
		z.X0++
		z.Y0++
		z.X1--
		z.Y1--
	}
	kept := 0
	for i := range s.Units {
		u := s.Units[i]
		if !z.Contains(u.X, u.Y) {
			s.LostToBorder += u.Cargo
			continue
		}
		s.Units[kept] = u
		kept++
	}
	s.Units = s.Units[:kept]
}

// finish eliminates players that can never act again and ends the match
// after max_turns or when at most one player is left.
func (s *State) finish() {
	for seat := 0; seat < s.N; seat++ {
		s.count[seat] = 0
	}
	for i := range s.Units {
		s.count[s.Units[i].Owner]++
	}
	in := 0
	for seat := 0; seat < s.N; seat++ {
		if s.count[seat] == 0 && s.Banks[seat] < s.Set.SpawnCost {
			s.Out[seat] = true
		}
		if !s.Out[seat] {
			in++
		}
	}
	if s.TurnNum >= s.Set.MaxTurns || in <= 1 {
		s.Over = true
	}
}

// Placement lists the seats best first: higher bank, then more living units,
// then the bank that reached its final value earlier, then the lower seat.
func (s *State) Placement() []int {
	units := make([]int, s.N)
	for i := range s.Units {
		units[s.Units[i].Owner]++
	}
	order := make([]int, s.N)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		switch {
		case s.Banks[a] != s.Banks[b]:
			return s.Banks[a] > s.Banks[b]
		case units[a] != units[b]:
			return units[a] > units[b]
		case s.BankedAt[a] != s.BankedAt[b]:
			return s.BankedAt[a] < s.BankedAt[b]
		}
		return a < b
	})
	return order
}

// OreTotal is all the ore in the game: on the map, in cargo, in the banks,
// spent on spawns and lost to the border. It never changes.
func (s *State) OreTotal() int {
	t := s.SpentOnSpawns + s.LostToBorder
	for _, o := range s.Ore {
		t += o
	}
	for _, b := range s.Banks {
		t += b
	}
	for i := range s.Units {
		t += s.Units[i].Cargo
	}
	return t
}

// The game.State methods that are not about JSON.

// Params returns every parameter in force.
func (s *State) Params() game.Params { return s.Set.Params() }

// Players returns the number of seats.
func (s *State) Players() int { return s.N }

// Turn is the number of turns resolved.
func (s *State) Turn() int { return s.TurnNum }

// Done reports whether the match is over.
func (s *State) Done() bool { return s.Over }

// Asked returns every seat not eliminated, or none once the match is over.
func (s *State) Asked() []int {
	s.asked = s.asked[:0]
	if s.Over {
		return s.asked
	}
	for seat := 0; seat < s.N; seat++ {
		if !s.Out[seat] {
			s.asked = append(s.asked, seat)
		}
	}
	return s.asked
}

// Scores are the banks.
func (s *State) Scores() []int64 {
	out := make([]int64, s.N)
	for i, b := range s.Banks {
		out[i] = int64(b)
	}
	return out
}

// Hash is FNV-1a over the whole state, a word at a time.
func (s *State) Hash() uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	mix := func(v int) { h = (h ^ uint64(v)) * prime }
	mix(s.TurnNum)
	mix(s.NextID)
	mix(s.SpentOnSpawns)
	mix(s.LostToBorder)
	mix(s.Zone.X0)
	mix(s.Zone.Y0)
	mix(s.Zone.X1)
	mix(s.Zone.Y1)
	for seat := 0; seat < s.N; seat++ {
		mix(s.Banks[seat])
		mix(s.BankedAt[seat])
		if s.Out[seat] {
			mix(1)
		} else {
			mix(0)
		}
	}
	for i := range s.Units {
		u := &s.Units[i]
		mix(u.ID)
		mix(u.Owner)
		mix(u.Y*s.W + u.X)
		mix(u.Cargo)
	}
	for _, o := range s.Ore {
		mix(o)
	}
	return h
}
