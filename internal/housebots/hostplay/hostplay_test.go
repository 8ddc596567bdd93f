package hostplay_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/housebots/hostplay"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sdk"
)

// decoders are every game's, one each (a decoder may reuse its state, as
// the house module's does).
var decoders = func() map[string]hostplay.Decoder {
	out := map[string]hostplay.Decoder{}
	for _, g := range games.All() {
		if hg, ok := g.(hostplay.Game); ok {
			out[g.Info().ID] = hg.HouseDecoder()
		}
	}
	return out
}()

// fuelField is what the platform adds to a wasm bot's observation; the
// decoders must read past it.
const fuelField = `,"fuel":{"left":5000000,"per_turn":5000000,"cap":20000000}}`

// TestDecodeRoundTrip plays random matches of every game (several sizes,
// player counts and seeds) and, at every turn, decodes each asked seat's
// observation: the state decoded must write the same observation again,
// which is all a house bot may read.
func TestDecodeRoundTrip(t *testing.T) {
	type setup struct {
		game    string
		players int
		params  game.Params
		bots    []string
	}
	setups := []setup{
		{"dots-and-boxes", 2, nil, []string{"builtin:random", "builtin:greedy"}},
		{"lines-and-boxes", 2, nil, []string{"builtin:random", "builtin:greedy"}},
		{"lines-and-boxes", 2, game.Params{"rows": "0", "cols": "0", "predrawn": "-1"}, []string{"builtin:greedy", "builtin:random"}},
		{"grid-royale", 2, nil, []string{"builtin:harvester", "builtin:idle"}},
		{"grid-royale", 4, nil, []string{"builtin:harvester", "builtin:house", "builtin:idle", "builtin:harvester"}},
	}
	for _, su := range setups {
		for seed := uint64(1); seed <= 3; seed++ {
			g, err := games.Lookup(su.game)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			check := func(st game.State) {
				for _, seat := range st.Asked() {
					obs := st.AppendObservation(nil, seat)
					line := append(bytes.TrimSuffix(bytes.Clone(obs), []byte("}")), fuelField...)
					got, you, err := decoders[su.game](sdk.JSON(line))
					if err != nil {
						t.Fatalf("%s seed %d turn %d seat %d: %v", su.game, seed, st.Turn(), seat, err)
					}
					if you != seat {
						t.Fatalf("%s: decoded seat %d, want %d", su.game, you, seat)
					}
					if again := got.AppendObservation(nil, seat); !bytes.Equal(again, obs) {
						t.Fatalf("%s seed %d turn %d seat %d: the decoded state observes\n%s\nwant\n%s", su.game, seed, st.Turn(), seat, again, obs)
					}
					checked++
				}
			}
			rn := match.Runner{OnTurn: func(_ *replay.Turn, st game.State) { check(st) }}
			if _, err := rn.Play(context.Background(), g, game.Config{Seed: seed, Players: su.players, Params: su.params}, local.Seats(spec.MustParseAll(su.bots...))); err != nil {
				t.Fatal(err)
			}
			if checked < 10 {
				t.Errorf("%s seed %d: only %d observations checked", su.game, seed, checked)
			}
		}
	}
}

// FuzzDecode: no observation line, however broken, makes a decoder panic;
// a bot that cannot read its observation answers {} and plays on.
func FuzzDecode(f *testing.F) {
	for _, g := range games.All() {
		st, err := g.New(game.Config{Seed: 5, Players: 2})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(st.AppendObservation(nil, 0))
	}
	f.Add([]byte(`{"rows":5,"cols":5,"h":[[1]],"owner":[[9]]}`))
	f.Add([]byte(`{"width":3,"params":{"players":2},"ore":[1,2,3,4,5,6,7,8,9],"bases":[{"owner":1,"x":9}],"banks":[1,2],"units":[{"id":3},{"id":2}]}`))
	f.Add([]byte(`{"rows":3,"cols":3,"moves":[{"player":0,"from":"A1","to":"A2"},{"player":-1,"from":"B1","to":"B2"}],"you":0}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, d := range decoders {
			st, seat, err := d(sdk.JSON(line))
			if err == nil {
				if seat < 0 || seat >= st.Players() {
					t.Fatalf("seat %d of %d players", seat, st.Players())
				}
				st.AppendObservation(nil, seat)
			}
		}
	})
}
