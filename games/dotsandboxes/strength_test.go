package dotsandboxes

import (
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// playHouse plays one match between two house bots and returns the scores.
func playHouse(t testing.TB, seed uint64, names [2]string) [2]int {
	_, scores := playHouseMatch(t, seed, names)
	return scores
}

// playHouseMatch plays one match between two house bots directly through
// the game interface (the runner's own tests cover the runner), failing on
// any answer that is not legal, and returns the state hash after every turn
// and the final scores.
func playHouseMatch(t testing.TB, seed uint64, names [2]string) ([]uint64, [2]int) {
	g := Game{}
	st, err := g.New(game.Config{Seed: seed, Players: 2})
	if err != nil {
		t.Fatal(err)
	}
	var bots [2]game.HouseBot
	for seat, name := range names {
		for _, info := range g.HouseBots() {
			if info.Name == name {
				bots[seat] = info.New(rng.Mix(seed, uint64(seat)), seat)
			}
		}
		if bots[seat] == nil {
			t.Fatalf("no house bot %q", name)
		}
	}
	var hashes []uint64
	for !st.Done() {
		answers := [][]byte{bots[0].Act(st, 0), bots[1].Act(st, 1)}
		for seat, v := range st.Apply(answers) {
			if v.Status != game.OK && v.Status != game.Ignored {
				t.Fatalf("seed %d: %s answered %s: %s (%s)", seed, names[seat], answers[seat], v.Status, v.Reason)
			}
		}
		hashes = append(hashes, st.Hash())
	}
	s := st.(*State)
	return hashes, [2]int{s.Score(0), s.Score(1)}
}

// winRate plays n seat-balanced matches of a against b and returns a's share of wins.
func winRate(t testing.TB, a, b string, n int) float64 {
	wins := 0
	for i := 0; i < n; i++ {
		seed := uint64(1000 + i/2)
		if i%2 == 0 {
			if sc := playHouse(t, seed, [2]string{a, b}); sc[0] > sc[1] {
				wins++
			}
		} else if sc := playHouse(t, seed, [2]string{b, a}); sc[1] > sc[0] {
			wins++
		}
	}
	return float64(wins) / float64(n)
}

func TestHouseBotStrength(t *testing.T) {
	for _, tc := range []struct {
		strong, weak string
		min          float64
	}{
		{"chains", "greedy", 0.90},
		{"greedy", "random", 0.95},
		// The beginner is meant to be beaten by anyone who knows the chain
		// rule, and to make a game of it for anyone who does not.
		{"chains", "beginner", 0.85},
		{"beginner", "random", 0.95},
	} {
		rate := winRate(t, tc.strong, tc.weak, 100)
		t.Logf("%s beats %s in %.0f%% of 100 seat-balanced matches", tc.strong, tc.weak, 100*rate)
		if rate < tc.min {
			t.Errorf("%s beats %s in only %.0f%% of matches, want at least %.0f%%", tc.strong, tc.weak, 100*rate, 100*tc.min)
		}
	}
}
