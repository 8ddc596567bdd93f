package snake

import (
	"bytes"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
	"github.com/arenabots/arena/sdk"
)

// TestHouseDecoderRoundTrip plays matches of 2 to 8 snakes and decodes every
// asked seat's observation, with the platform's fuel field added: the state
// decoded must write the same observation again, which is all a house bot
// may read.
func TestHouseDecoderRoundTrip(t *testing.T) {
	decode := Game{}.HouseDecoder()
	checked := 0
	for players := 2; players <= 8; players++ {
		for seed := uint64(1); seed <= 3; seed++ {
			names := make([]string, players)
			for i := range names {
				names[i] = []string{"safe", "search", "random"}[(i+int(seed))%3]
			}
			s := NewState(DefaultSettings(), players, seed)
			bots := make([]game.HouseBot, players)
			for i, name := range names {
				for _, hb := range (Game{}).HouseBots() {
					if hb.Name == name {
						bots[i] = hb.New(rng.Mix(seed, uint64(i)), i)
					}
				}
			}
			for !s.Done() {
				answers := make([][]byte, players)
				for _, seat := range s.Asked() {
					obs := s.AppendObservation(nil, seat)
					line := game.AddField(obs, "fuel", []byte(`{"left":5000000,"per_turn":5000000,"cap":20000000}`))
					got, you, err := decode(sdk.JSON(line))
					if err != nil {
						t.Fatalf("%d players, seed %d, turn %d, seat %d: %v", players, seed, s.TurnNum, seat, err)
					}
					if you != seat {
						t.Fatalf("decoded seat %d, want %d", you, seat)
					}
					if again := got.AppendObservation(nil, seat); !bytes.Equal(again, obs) {
						t.Fatalf("turn %d seat %d: the decoded state observes\n%s\nwant\n%s", s.TurnNum, seat, again, obs)
					}
					answers[seat] = bots[seat].Act(got, seat)
					checked++
				}
				s.Apply(answers)
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d observations checked", checked)
	}
}

// FuzzHouseDecoder: no line, however broken, makes the decoder panic, and a
// state it accepts can be observed and asked.
func FuzzHouseDecoder(f *testing.F) {
	s := NewState(DefaultSettings(), 4, 3)
	f.Add(s.AppendObservation(nil, 2))
	f.Add([]byte(`{"board":{"width":7,"height":7,"snakes":[{"id":"seat-1","body":[]}]},"you":{"id":"seat-1"}}`))
	f.Add([]byte(`{"board":{"width":7,"height":7,"snakes":[{"id":"seat-0","body":[{"x":99,"y":-4}]}]},"you":{"id":"seat-0"}}`))
	decode := Game{}.HouseDecoder()
	f.Fuzz(func(t *testing.T, line []byte) {
		st, seat, err := decode(sdk.JSON(line))
		if err != nil {
			return
		}
		st.AppendObservation(nil, seat)
		for _, hb := range (Game{}).HouseBots() {
			hb.New(1, seat).Act(st, seat)
		}
	})
}
