package gridroyale

import (
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

func oreHash(ore []int) string {
	h := fnv.New64a()
	for _, o := range ore {
		fmt.Fprintf(h, "%d,", o)
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// TestOreMapGolden pins the generator: if this fails, every recorded match
// on the platform would re-run differently. Change it only with a new game
// version.
func TestOreMapGolden(t *testing.T) {
	for _, c := range []struct {
		seed          uint64
		side, players int
		want          string
	}{
		{1, 24, 2, "8a73d6bb10c48bf9"},
		{1, 32, 4, "22985e467f184a65"},
		{42, 24, 2, "0a2395399c14c50b"},
		{0xdeadbeef, 32, 4, "522a72b330508c3d"},
	} {
		if got := oreHash(GenerateOre(c.seed, c.side, c.players)); got != c.want {
			t.Errorf("GenerateOre(%d, %d, %d) hashes to %s, want %s", c.seed, c.side, c.players, got, c.want)
		}
	}
}

func TestOreMapShape(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		for _, c := range []struct{ side, players int }{{24, 2}, {32, 4}, {12, 2}, {64, 4}} {
			w := c.side
			ore := GenerateOre(seed, w, c.players)
			for y := 0; y < w; y++ {
				for x := 0; x < w; x++ {
					v := ore[y*w+x]
					if v < 0 || v > MaxCellOre {
						t.Fatalf("seed %d: ore %d at (%d,%d)", seed, v, x, y)
					}
					rx, ry := w-1-x, w-1-y // the half turn
					if c.players == 4 {
						rx, ry = w-1-y, x // the quarter turn
					}
					if ore[ry*w+rx] != v {
						t.Fatalf("seed %d, %d players: ore (%d,%d)=%d but its image (%d,%d)=%d", seed, c.players, x, y, v, rx, ry, ore[ry*w+rx])
					}
				}
			}
			for seat := 0; seat < c.players; seat++ {
				bx, by := BasePos(w, c.players, seat)
				if ore[by*w+bx] != 0 {
					t.Fatalf("seed %d: base %d holds ore", seed, seat)
				}
			}
		}
	}
	// Different seeds give different maps.
	if oreHash(GenerateOre(1, 24, 2)) == oreHash(GenerateOre(2, 24, 2)) {
		t.Fatal("seeds 1 and 2 give the same map")
	}
}

// randomBatch makes a batch that is usually legal and now and then not:
// a foreign or dead unit, a unit twice, a move off the grid.
func randomBatch(src *rng.Source, s *State, seat int) *Batch {
	b := &Batch{Spawn: src.Intn(3) == 0}
	for i := range s.Units {
		u := &s.Units[i]
		if u.Owner != seat || src.Intn(4) == 0 {
			continue
		}
		b.Orders = append(b.Orders, Order{Unit: u.ID, Do: Dir(src.Intn(5))})
	}
	switch src.Intn(40) {
	case 0:
		b.Orders = append(b.Orders, Order{Unit: src.Intn(s.NextID + 2), Do: East})
	case 1:
		if len(b.Orders) > 0 {
			b.Orders = append(b.Orders, b.Orders[0])
		}
	case 2:
		return nil // no answer
	}
	return b
}

// TestConservationOverRandomMatches plays 1,000 short random matches (a
// small grid edge of the parameters, so the border bites often) and checks,
// after every turn, that ore is conserved and the state is sound.
func TestConservationOverRandomMatches(t *testing.T) {
	matches := 1000
	if testing.Short() {
		matches = 200
	}
	turns, borderLoss := 0, 0
	for m := 0; m < matches; m++ {
		src := rng.New(uint64(m))
		players := 2 + 2*(m%2)
		params := game.Params{ParamMaxTurns: "80", ParamShrinkInterval: fmt.Sprint(3 + m%7)}
		if m%3 == 0 {
			params[ParamGridSide] = "12"
			params[ParamSpawnCost] = "100"
		}
		st, err := Game{}.New(game.Config{Seed: uint64(m), Players: players, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		total := s.OreTotal()
		batches := make([]*Batch, players)
		for !s.Done() {
			for seat := range batches {
				batches[seat] = randomBatch(src, s, seat)
			}
			s.Step(batches)
			if got := s.OreTotal(); got != total {
				t.Fatalf("match %d turn %d: ore total %d, want %d", m, s.TurnNum, got, total)
			}
			checkSound(t, s)
			turns++
		}
		borderLoss += s.LostToBorder
	}
	// The property is only worth something if the matches went somewhere.
	if turns < matches*30 || borderLoss == 0 {
		t.Fatalf("%d matches played only %d turns in all, %d ore lost to the border", matches, turns, borderLoss)
	}
}

// checkSound checks what must hold between turns.
func checkSound(t *testing.T, s *State) {
	t.Helper()
	cells := map[int]int{}
	for i, u := range s.Units {
		if i > 0 && s.Units[i-1].ID >= u.ID {
			t.Fatalf("turn %d: units out of id order", s.TurnNum)
		}
		if !s.Zone.Contains(u.X, u.Y) || u.Cargo < 0 || u.Cargo > s.Set.CargoCap {
			t.Fatalf("turn %d: unit %+v, zone %+v", s.TurnNum, u, s.Zone)
		}
		c := u.Y*s.W + u.X
		if prev, ok := cells[c]; ok && (prev != u.Owner || s.Bases[u.Owner] != c) {
			// Two units may share a cell only as one owner on its own base,
			// or as a freshly spawned unit beside an enemy on the base.
			if s.Bases[u.Owner] != c && s.Bases[prev] != c {
				t.Fatalf("turn %d: two units on cell (%d,%d) off any base", s.TurnNum, u.X, u.Y)
			}
		}
		cells[c] = u.Owner
	}
	for _, o := range s.Ore {
		if o < 0 {
			t.Fatalf("turn %d: negative ore", s.TurnNum)
		}
	}
	for seat, b := range s.Banks {
		if b < 0 {
			t.Fatalf("turn %d: seat %d bank %d", s.TurnNum, seat, b)
		}
	}
}

// TestDeterminism plays the same matches twice through the JSON interface:
// the same seed and answers give the same hash after every turn.
func TestDeterminism(t *testing.T) {
	for _, names := range [][]string{{"house", "harvester"}, {"house", "harvester", "house", "idle"}} {
		var runs [2][]uint64
		for r := range runs {
			g := Game{}
			st, _ := g.New(game.Config{Seed: 77, Players: len(names)})
			bots := make([]game.HouseBot, len(names))
			for seat, name := range names {
				bots[seat] = houseBot(t, name).New(rng.Mix(77, uint64(seat)), seat)
			}
			answers := make([][]byte, len(names))
			for !st.Done() {
				clear(answers)
				for _, seat := range st.Asked() {
					answers[seat] = bots[seat].Act(st, seat)
				}
				st.Apply(answers)
				runs[r] = append(runs[r], st.Hash())
			}
		}
		if len(runs[0]) != len(runs[1]) {
			t.Fatalf("%v: %d turns, then %d", names, len(runs[0]), len(runs[1]))
		}
		for i := range runs[0] {
			if runs[0][i] != runs[1][i] {
				t.Fatalf("%v: hashes differ after turn %d", names, i+1)
			}
		}
	}
}

func houseBot(t testing.TB, name string) game.HouseBotInfo {
	for _, info := range (Game{}).HouseBots() {
		if info.Name == name {
			return info
		}
	}
	t.Fatalf("no house bot %q", name)
	return game.HouseBotInfo{}
}

func TestHashSeesEveryPart(t *testing.T) {
	base := board(t, 2)
	put(base, 0, 3, 3, 10)
	h := base.Hash()
	for name, change := range map[string]func(s *State){
		"ore":    func(s *State) { s.Ore[5]++ },
		"bank":   func(s *State) { s.Banks[1]++ },
		"cargo":  func(s *State) { s.Units[0].Cargo++ },
		"place":  func(s *State) { s.Units[0].X++ },
		"turn":   func(s *State) { s.TurnNum++ },
		"zone":   func(s *State) { s.Zone.X0++ },
		"out":    func(s *State) { s.Out[1] = true },
		"banked": func(s *State) { s.BankedAt[0]++ },
		"spent":  func(s *State) { s.SpentOnSpawns++ },
		"lost":   func(s *State) { s.LostToBorder++ },
	} {
		s := board(t, 2)
		put(s, 0, 3, 3, 10)
		change(s)
		if s.Hash() == h {
			t.Errorf("changing the %s leaves the hash unchanged", name)
		}
	}
}

func TestStepAllocatesNothing(t *testing.T) {
	s, batches := benchState(t)
	allocs := testing.AllocsPerRun(100, func() {
		s.TurnNum = 0
		s.Step(batches[s.NextID%2])
	})
	if allocs != 0 {
		t.Fatalf("Step allocates %.1f times per turn", allocs)
	}
}
