package gridroyale

import (
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
)

// board builds a hand-made position: players seats on the default grid, no
// ore anywhere, no units, the starting banks (so that nobody is eliminated).
// Tests then place what they need.
func board(t *testing.T, players int) *State {
	t.Helper()
	set, err := ParseSettings(players, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := NewState(set, players, 1)
	clear(s.Ore)
	s.Units = s.Units[:0]
	s.NextID = 1
	return s
}

// put adds a unit for owner at (x, y) with cargo and returns its id.
func put(s *State, owner, x, y, cargo int) int {
	id := s.NextID
	s.NextID++
	s.Units = append(s.Units, Unit{ID: id, Owner: owner, X: x, Y: y, Cargo: cargo})
	return id
}

func (s *State) ore(x, y int) int   { return s.Ore[y*s.W+x] }
func (s *State) setOre(x, y, v int) { s.Ore[y*s.W+x] = v }
func (s *State) unit(id int) (Unit, bool) {
	if i := s.UnitIndex(id); i >= 0 {
		return s.Units[i], true
	}
	return Unit{}, false
}

// step resolves one turn from typed batches, one per seat (nil: no answer).
func step(t *testing.T, s *State, batches ...*Batch) []Refusal {
	t.Helper()
	before := s.OreTotal()
	r := s.Step(batches)
	if after := s.OreTotal(); after != before {
		t.Fatalf("ore not conserved: %d before the turn, %d after", before, after)
	}
	return r
}

func orders(spawn bool, os ...Order) *Batch { return &Batch{Orders: os, Spawn: spawn} }

func mustUnit(t *testing.T, s *State, id int) Unit {
	t.Helper()
	u, ok := s.unit(id)
	if !ok {
		t.Fatalf("unit %d is dead, want it alive", id)
	}
	return u
}

func mustBeDead(t *testing.T, s *State, id int) {
	t.Helper()
	if u, ok := s.unit(id); ok {
		t.Fatalf("unit %d is alive at (%d,%d), want it dead", id, u.X, u.Y)
	}
}

func TestStart(t *testing.T) {
	for _, c := range []struct {
		players, side int
		bases         [][2]int
	}{
		{2, 24, [][2]int{{9, 9}, {14, 14}}},
		{4, 32, [][2]int{{13, 13}, {18, 13}, {18, 18}, {13, 18}}},
	} {
		st, err := Game{}.New(game.Config{Seed: 7, Players: c.players})
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		if s.W != c.side || s.Zone != (Zone{0, 0, c.side - 1, c.side - 1}) {
			t.Errorf("%d players: side %d zone %+v, want side %d and the whole grid", c.players, s.W, s.Zone, c.side)
		}
		for seat, b := range c.bases {
			if s.Bases[seat] != b[1]*s.W+b[0] {
				t.Errorf("%d players: seat %d base at cell %d, want (%d,%d)", c.players, seat, s.Bases[seat], b[0], b[1])
			}
			u := s.Units[seat]
			if u.ID != seat+1 || u.Owner != seat || u.X != b[0] || u.Y != b[1] || u.Cargo != 0 {
				t.Errorf("%d players: starting unit %+v, want id %d of seat %d on its base", c.players, u, seat+1, seat)
			}
			if s.Banks[seat] != StartBank {
				t.Errorf("bank %d, want %d", s.Banks[seat], StartBank)
			}
		}
		if got := s.Asked(); len(got) != c.players {
			t.Errorf("asked %v, want every seat", got)
		}
	}
}

func TestMovePaysFromCargoOntoTheCellLeft(t *testing.T) {
	s := board(t, 2)
	s.setOre(5, 5, 259) // cost 25
	s.setOre(5, 4, 100)
	id := put(s, 0, 5, 5, 40)
	step(t, s, orders(false, Order{id, North}))
	u := mustUnit(t, s, id)
	if u.X != 5 || u.Y != 4 || u.Cargo != 15 {
		t.Fatalf("after MOVE_N: %+v, want (5,4) with cargo 15", u)
	}
	if s.ore(5, 5) != 284 || s.ore(5, 4) != 100 {
		t.Fatalf("ore left %d, arrived %d: want the cost 25 back on the cell left (284) and no harvest after a move (100)", s.ore(5, 5), s.ore(5, 4))
	}
	// The four directions, in a ring on bare ground: E, S, W, N.
	s.setOre(5, 5, 0)
	s.setOre(5, 4, 0)
	for _, c := range []struct {
		d    Dir
		x, y int
	}{{East, 6, 4}, {South, 6, 5}, {West, 5, 5}, {North, 5, 4}} {
		step(t, s, orders(false, Order{id, c.d}))
		if u := mustUnit(t, s, id); u.X != c.x || u.Y != c.y {
			t.Fatalf("%s: at (%d,%d), want (%d,%d)", c.d, u.X, u.Y, c.x, c.y)
		}
	}
}

func TestUnaffordableMoveStaysDoesNotHarvestAndCanBeHit(t *testing.T) {
	s := board(t, 2)
	s.setOre(5, 5, 400) // cost 40
	poor := put(s, 0, 5, 5, 39)
	step(t, s, orders(false, Order{poor, East}))
	u := mustUnit(t, s, poor)
	if u.X != 5 || u.Y != 5 || u.Cargo != 39 || s.ore(5, 5) != 400 {
		t.Fatalf("unaffordable move: %+v on ore %d, want it in place, cargo 39, ore 400 (no harvest)", u, s.ore(5, 5))
	}
	// Same again, while an enemy walks in: both die and spill.
	enemy := put(s, 1, 5, 6, 100)
	step(t, s, orders(false, Order{poor, East}), orders(false, Order{enemy, North}))
	mustBeDead(t, s, poor)
	mustBeDead(t, s, enemy)
	if got := s.ore(5, 5); got != 400+39+100 {
		t.Fatalf("ore on the wreck %d, want 539", got)
	}
}

func TestCollisionDestroysAndSpills(t *testing.T) {
	s := board(t, 2)
	a := put(s, 0, 3, 3, 300)
	b := put(s, 1, 5, 3, 200)
	step(t, s, orders(false, Order{a, East}), orders(false, Order{b, West}))
	mustBeDead(t, s, a)
	mustBeDead(t, s, b)
	if s.ore(4, 3) != 500 {
		t.Fatalf("spill %d, want 500", s.ore(4, 3))
	}
	// Two units of one owner off their base collide too.
	c := put(s, 0, 3, 3, 10)
	d := put(s, 0, 5, 3, 20)
	step(t, s, orders(false, Order{c, East}, Order{d, West}))
	mustBeDead(t, s, c)
	mustBeDead(t, s, d)
	if s.ore(4, 3) != 530 {
		t.Fatalf("spill %d, want 530", s.ore(4, 3))
	}
}

func TestCollisionOnABase(t *testing.T) {
	s := board(t, 2)
	bx, by := BasePos(s.W, 2, 0)
	home := put(s, 0, bx, by, 0)
	raider := put(s, 1, bx+1, by, 250)
	step(t, s, nil, orders(false, Order{raider, West}))
	mustBeDead(t, s, home)
	mustBeDead(t, s, raider)
	if s.ore(bx, by) != 250 {
		t.Fatalf("spill on the base %d, want 250", s.ore(bx, by))
	}
	if s.Banks[0] != StartBank {
		t.Fatalf("bank %d: a collision on a base banks nothing", s.Banks[0])
	}
}

func TestOwnUnitsShareTheirOwnBase(t *testing.T) {
	s := board(t, 2)
	bx, by := BasePos(s.W, 2, 0)
	a := put(s, 0, bx-1, by, 300)
	b := put(s, 0, bx+1, by, 200)
	c := put(s, 0, bx, by, 0)
	step(t, s, orders(false, Order{a, East}, Order{b, West}))
	for _, id := range []int{a, b, c} {
		if u := mustUnit(t, s, id); u.X != bx || u.Y != by || u.Cargo != 0 {
			t.Fatalf("unit %+v: want it on the base with its cargo banked", u)
		}
	}
	if s.Banks[0] != StartBank+500 || s.BankedAt[0] != 1 {
		t.Fatalf("bank %d at turn %d, want 1500 at turn 1", s.Banks[0], s.BankedAt[0])
	}
}

func TestSwappingUnitsPassThrough(t *testing.T) {
	s := board(t, 2)
	a := put(s, 0, 3, 3, 10)
	b := put(s, 1, 4, 3, 10)
	step(t, s, orders(false, Order{a, East}), orders(false, Order{b, West}))
	if ua, ub := mustUnit(t, s, a), mustUnit(t, s, b); ua.X != 4 || ub.X != 3 {
		t.Fatalf("after the swap: %+v %+v", ua, ub)
	}
}

func TestHarvest(t *testing.T) {
	s := board(t, 2)
	s.setOre(2, 2, 1003)
	s.setOre(6, 6, 4000)
	bx, by := BasePos(s.W, 2, 1)
	s.setOre(bx, by, 80) // ore spilled on seat 1's base
	a := put(s, 0, 2, 2, 0)
	full := put(s, 0, 6, 6, 900)
	raider := put(s, 0, bx, by, 0)
	step(t, s, nil, nil) // no answers: everyone stays
	if u := mustUnit(t, s, a); u.Cargo != 250 || s.ore(2, 2) != 753 {
		t.Fatalf("harvest: cargo %d ore %d, want floor(1003/4)=250 moved", u.Cargo, s.ore(2, 2))
	}
	if u := mustUnit(t, s, full); u.Cargo != 1000 || s.ore(6, 6) != 3900 {
		t.Fatalf("capped harvest: cargo %d ore %d, want 1000 and 3900", u.Cargo, s.ore(6, 6))
	}
	if u := mustUnit(t, s, raider); u.Cargo != 20 {
		t.Fatalf("harvest on an enemy base: cargo %d, want 20", u.Cargo)
	}
	// On its own base a unit does not harvest.
	s.Units = s.Units[:0]
	own := put(s, 1, bx, by, 0)
	step(t, s, nil, nil)
	if u := mustUnit(t, s, own); u.Cargo != 0 || s.ore(bx, by) != 60 {
		t.Fatalf("own base: cargo %d ore %d, want no harvest", u.Cargo, s.ore(bx, by))
	}
}

func TestSpawn(t *testing.T) {
	s := board(t, 2)
	bx, by := BasePos(s.W, 2, 0)
	s.Banks[0] = 1200
	step(t, s, orders(true))
	if len(s.Units) != 1 || s.Units[0].X != bx || s.Units[0].Y != by || s.Banks[0] != 700 || s.SpentOnSpawns != 500 {
		t.Fatalf("spawn: units %+v bank %d", s.Units, s.Banks[0])
	}
	// Blocked by the own unit that now sits on the base.
	step(t, s, orders(true))
	if len(s.Units) != 1 || s.Banks[0] != 700 {
		t.Fatalf("spawn with an own unit on the base: units %+v bank %d", s.Units, s.Banks[0])
	}
	// The unit leaves in the move phase: the spawn is then allowed.
	id := s.Units[0].ID
	step(t, s, orders(true, Order{id, East}))
	if len(s.Units) != 2 || s.Banks[0] != 200 {
		t.Fatalf("spawn after leaving: units %+v bank %d", s.Units, s.Banks[0])
	}
	// Too poor.
	step(t, s, orders(true, Order{s.Units[1].ID, West}))
	if len(s.Units) != 2 {
		t.Fatalf("spawn with bank 200: %+v", s.Units)
	}
	// An enemy on the base does not block it.
	s2 := board(t, 2)
	s2.Banks[0] = 500
	put(s2, 1, bx, by, 0)
	step(t, s2, orders(true))
	if len(s2.Units) != 2 || s2.Banks[0] != 0 {
		t.Fatalf("spawn under an enemy: %+v", s2.Units)
	}
}

func TestUnitsCap(t *testing.T) {
	set, _ := ParseSettings(2, game.Params{ParamUnitsCap: "2"})
	s := NewState(set, 2, 1)
	s.Banks[0] = 5000
	step(t, s, orders(true, Order{1, East}))
	if s.UnitCount(0) != 2 {
		t.Fatalf("units %d, want 2", s.UnitCount(0))
	}
	step(t, s, orders(true, Order{s.Units[len(s.Units)-1].ID, West}))
	if s.UnitCount(0) != 2 || s.Banks[0] != 4500 {
		t.Fatalf("at the cap: units %d bank %d, want 2 and 4500", s.UnitCount(0), s.Banks[0])
	}
}

func TestSpawnIDsInSeatOrder(t *testing.T) {
	s := board(t, 4)
	for seat := range s.Banks {
		s.Banks[seat] = 600
	}
	step(t, s, orders(true), nil, orders(true), orders(true))
	var got []int
	for _, u := range s.Units {
		got = append(got, u.Owner*100+u.ID)
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 202 || got[2] != 303 {
		t.Fatalf("owner*100+id %v, want [1 202 303]", got)
	}
}

func TestBorderLosesCargoWhereCollisionSpillsIt(t *testing.T) {
	s := board(t, 2)
	s.TurnNum = 24 // the next turn, 25, shrinks the zone
	edge := put(s, 0, 0, 7, 600)
	inside := put(s, 0, 1, 7, 0)
	step(t, s)
	if s.Zone != (Zone{1, 1, 22, 22}) {
		t.Fatalf("zone %+v after turn 25", s.Zone)
	}
	mustBeDead(t, s, edge)
	mustUnit(t, s, inside)
	if s.ore(0, 7) != 0 || s.LostToBorder != 600 {
		t.Fatalf("border: ore %d lost %d, want the cargo lost, not spilled", s.ore(0, 7), s.LostToBorder)
	}
	// Walking out of the zone is fatal on any turn.
	step(t, s, orders(false, Order{inside, West}))
	mustBeDead(t, s, inside)
}

func TestZoneTiming(t *testing.T) {
	for _, c := range []struct{ players, floorTurn int }{{2, 200}, {4, 300}} {
		s := board(t, c.players)
		for s.TurnNum < 400 {
			step(t, s)
			width := s.Zone.X1 - s.Zone.X0 + 1
			if s.TurnNum < c.floorTurn && width == 8 || s.TurnNum >= c.floorTurn && width != 8 {
				t.Fatalf("%d players: zone width %d after turn %d; it reaches 8 at turn %d", c.players, width, s.TurnNum, c.floorTurn)
			}
			if s.TurnNum == 24 && width != s.W || s.TurnNum == 25 && width != s.W-2 {
				t.Fatalf("zone width %d after turn %d", width, s.TurnNum)
			}
		}
		// The final zone holds every base.
		for _, b := range s.Bases {
			if !s.Zone.Contains(b%s.W, b/s.W) {
				t.Fatalf("base %d outside the final zone %+v", b, s.Zone)
			}
		}
	}
}

func TestElimination(t *testing.T) {
	s := board(t, 4)
	copy(s.Banks, []int{1000, 100, 0, 0})
	put(s, 2, 2, 2, 0)
	put(s, 3, 4, 4, 0)
	step(t, s)
	if s.Out[0] || !s.Out[1] || s.Out[2] || s.Out[3] || s.Over {
		t.Fatalf("out %v over %v: seat 0 (no units, bank 1000) stays in, seat 1 (bank 100) is out", s.Out, s.Over)
	}
	if got := s.Asked(); len(got) != 3 || got[0] != 0 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("asked %v, want [0 2 3]", got)
	}
	// Seat 0 spawns (bank 0), seats 2 and 3 lose their units in a crash.
	s.Units = s.Units[:0]
	a := put(s, 2, 2, 2, 0)
	b := put(s, 3, 4, 2, 0)
	step(t, s, orders(true), nil, orders(false, Order{a, East}), orders(false, Order{b, West}))
	if !s.Out[2] || !s.Out[3] || s.Out[0] || !s.Over {
		t.Fatalf("out %v over %v: one player left ends the match", s.Out, s.Over)
	}
	if p := s.Placement(); p[0] != 0 {
		t.Fatalf("placement %v", p)
	}
	if len(s.Asked()) != 0 {
		t.Fatalf("asked %v after the end", s.Asked())
	}
}

func TestMatchEndsAtMaxTurns(t *testing.T) {
	set, _ := ParseSettings(2, game.Params{ParamMaxTurns: "3"})
	s := NewState(set, 2, 1)
	for i := 0; i < 3; i++ {
		if s.Over {
			t.Fatalf("over after %d turns", i)
		}
		step(t, s)
	}
	if !s.Over || s.TurnNum != 3 {
		t.Fatalf("turn %d over %v", s.TurnNum, s.Over)
	}
	before := s.Hash()
	s.Step([]*Batch{orders(true), orders(true)})
	if s.Hash() != before {
		t.Fatal("a finished match changed")
	}
}

func TestPlacementTieBreaks(t *testing.T) {
	for _, c := range []struct {
		name     string
		banks    []int
		units    []int
		bankedAt []int
		want     []int
	}{
		{"bank", []int{10, 30, 20, 0}, []int{0, 0, 0, 0}, []int{0, 0, 0, 0}, []int{1, 2, 0, 3}},
		{"units", []int{50, 50, 50, 50}, []int{1, 3, 0, 2}, []int{0, 0, 0, 0}, []int{1, 3, 0, 2}},
		{"banked earlier", []int{50, 50, 50, 50}, []int{1, 1, 1, 1}, []int{9, 4, 7, 5}, []int{1, 3, 2, 0}},
		{"seat", []int{50, 50, 50, 50}, []int{1, 1, 1, 1}, []int{3, 3, 3, 3}, []int{0, 1, 2, 3}},
		{"all four", []int{60, 50, 50, 50}, []int{0, 2, 2, 1}, []int{1, 6, 6, 2}, []int{0, 1, 2, 3}},
	} {
		s := board(t, 4)
		copy(s.Banks, c.banks)
		copy(s.BankedAt, c.bankedAt)
		for seat, n := range c.units {
			for i := 0; i < n; i++ {
				put(s, seat, 2*i, 2*seat, 0)
			}
		}
		got := s.Placement()
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: placement %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

func TestBankedAtFollowsTheBank(t *testing.T) {
	s := board(t, 2)
	bx, by := BasePos(s.W, 2, 0)
	id := put(s, 0, bx+1, by, 100)
	step(t, s)
	step(t, s, orders(false, Order{id, West}))
	if s.BankedAt[0] != 2 || s.Banks[0] != StartBank+100 {
		t.Fatalf("bank %d at turn %d, want 1100 at turn 2", s.Banks[0], s.BankedAt[0])
	}
	step(t, s) // on the base with nothing to bank: unchanged
	if s.BankedAt[0] != 2 {
		t.Fatalf("banked-at moved to %d without a change of bank", s.BankedAt[0])
	}
}

func TestIllegalBatchIsANoActionTurn(t *testing.T) {
	for _, c := range []struct {
		name   string
		batch  *Batch
		reason string
	}{
		{"enemy unit", orders(false, Order{1, East}, Order{2, East}), "unit 2 is not a living unit of player 0"},
		{"dead unit", orders(false, Order{99, East}), "unit 99 is not"},
		{"twice", orders(false, Order{1, East}, Order{1, West}), "unit 1 has two orders"},
		{"off the grid", orders(true, Order{3, North}), "leaves the grid"},
	} {
		s := board(t, 2)
		s.Banks[0] = 1000
		put(s, 0, 5, 5, 10) // id 1
		put(s, 1, 9, 5, 10) // id 2
		put(s, 0, 7, 0, 10) // id 3, on the north edge
		r := step(t, s, c.batch, orders(false, Order{2, East}))
		if r[0].Status != game.Illegal || !strings.Contains(r[0].Reason, c.reason) {
			t.Errorf("%s: %+v, want illegal with %q", c.name, r[0], c.reason)
		}
		if r[1].Status != "" {
			t.Errorf("%s: the other seat's batch got %+v", c.name, r[1])
		}
		if u := mustUnit(t, s, 1); u.X != 5 || s.UnitCount(0) != 2 || s.Banks[0] != 1000 {
			t.Errorf("%s: seat 0 acted (unit %+v, %d units, bank %d)", c.name, u, s.UnitCount(0), s.Banks[0])
		}
		if u := mustUnit(t, s, 2); u.X != 10 {
			t.Errorf("%s: the match did not go on for seat 1: %+v", c.name, u)
		}
	}
}

func TestParams(t *testing.T) {
	st, err := Game{}.New(game.Config{Seed: 1, Players: 4, Params: game.Params{ParamSpawnCost: "300", ParamMinZone: "10"}})
	if err != nil {
		t.Fatal(err)
	}
	p := st.Params()
	want := map[string]string{
		ParamGridSide: "32", ParamCargoCap: "1000", ParamHarvestDivisor: "4", ParamMoveCostDivisor: "10",
		ParamSpawnCost: "300", ParamUnitsCap: "50", ParamMaxTurns: "400", ParamShrinkInterval: "25", ParamMinZone: "10",
	}
	if len(p) != len(want) {
		t.Errorf("params %v, want %v", p, want)
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("param %s=%q, want %q", k, p[k], v)
		}
	}
	if len(Game{}.Info().Params) != len(want) {
		t.Errorf("Info lists %d params, want %d", len(Game{}.Info().Params), len(want))
	}
	for _, bad := range []struct {
		players int
		params  game.Params
		msg     string
	}{
		{3, nil, "2 or 4"},
		{2, game.Params{"cargo": "1"}, "unknown parameter"},
		{2, game.Params{ParamCargoCap: "lots"}, "not an integer"},
		{2, game.Params{ParamHarvestDivisor: "0"}, "must be in"},
		{2, game.Params{ParamMinZone: "9"}, "even"},
		{2, game.Params{ParamMinZone: "30"}, "larger than grid_side"},
	} {
		_, err := Game{}.New(game.Config{Players: bad.players, Params: bad.params})
		if err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("New(%d, %v): error %v, want one saying %q", bad.players, bad.params, err, bad.msg)
		}
	}
}
