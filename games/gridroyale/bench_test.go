package gridroyale

import (
	"testing"

	"github.com/arenabots/arena/game"
)

// benchState is a 4-player 32x32 match with 50 units per player (200 in
// all, every player at the cap) and four batches that, applied in turn,
// move every unit east, let it harvest, move it west, let it harvest: no
// unit ever meets another, so the position stays the same size forever.
func benchState(tb testing.TB) (*State, [4][]*Batch) {
	tb.Helper()
	set, err := ParseSettings(4, nil)
	if err != nil {
		tb.Fatal(err)
	}
	s := NewState(set, 4, 1)
	s.Units = s.Units[:0]
	s.NextID = 1
	for k := 0; k < 200; k++ {
		s.Units = append(s.Units, Unit{ID: s.NextID, Owner: k % 4, X: 2*(k%15) + 1, Y: 2*(k/15) + 1, Cargo: 500})
		s.NextID++
	}
	var phases [4][]*Batch
	for p, d := range []Dir{East, Stay, West, Stay} {
		phases[p] = make([]*Batch, 4)
		for seat := range phases[p] {
			b := &Batch{Spawn: true} // refused: every player is at the cap
			for _, u := range s.Units {
				if u.Owner == seat {
					b.Orders = append(b.Orders, Order{Unit: u.ID, Do: d})
				}
			}
			phases[p][seat] = b
		}
	}
	return s, phases
}

// BenchmarkTurn4p200Units measures Step, the typed turn: validating four
// batches of 50 orders and the six phases over 200 units.
func BenchmarkTurn4p200Units(b *testing.B) {
	s, phases := benchState(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.TurnNum = 1 // never a shrink turn, never the end
		s.Step(phases[i%4])
		i++
	}
	if len(s.Units) != 200 {
		b.Fatalf("%d units left, want 200", len(s.Units))
	}
}

// BenchmarkMatch400Turns4pHouse plays a whole default 4-player match between
// house bots through the JSON interface, as the runner does (without bots'
// processes): observation, answer, Apply.
func BenchmarkMatch400Turns4pHouse(b *testing.B) {
	b.ReportAllocs()
	obs := make([]byte, 0, 64<<10)
	for b.Loop() {
		st, _ := Game{}.New(game.Config{Seed: 9, Players: 4})
		bots := make([]game.HouseBot, 4)
		for seat := range bots {
			bots[seat] = houseBot(b, "house").New(uint64(seat), seat)
		}
		answers := make([][]byte, 4)
		for !st.Done() {
			clear(answers)
			for _, seat := range st.Asked() {
				obs = st.AppendObservation(obs[:0], seat)
				answers[seat] = bots[seat].Act(st, seat)
			}
			st.Apply(answers)
		}
	}
}

// BenchmarkObservation4p measures writing one 32x32 observation.
func BenchmarkObservation4p(b *testing.B) {
	s, _ := benchState(b)
	buf := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	for b.Loop() {
		buf = s.AppendObservation(buf[:0], 0)
	}
	b.SetBytes(int64(len(buf)))
}
