package linesandboxes

import (
	"fmt"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// TestDeepSearchLegalAndDeterministic plays search-deep against search,
// greedy and itself on 3x3 and 3x4 boards (small, to keep the test quick),
// with random pre-drawn lines, twice each: every answer must be legal (playGame
// fails on any other status) and both runs must draw the same lines.
func TestDeepSearchLegalAndDeterministic(t *testing.T) {
	seeds := 4
	if testing.Short() {
		seeds = 2
	}
	for i := 0; i < seeds; i++ {
		seed := uint64(300 + i)
		params := game.Params{"rows": "3", "cols": fmt.Sprint(3 + i/3%2), "predrawn": "-1"}
		opponent := []string{"search", "greedy", "search-deep"}[i%3]
		var runs [2][]Move
		for r := range runs {
			s, err := NewState(seed, params)
			if err != nil {
				t.Fatal(err)
			}
			first := i % 2
			var bots [2]game.HouseBot
			bots[first] = houseBot(t, "search-deep", rng.Mix(seed, 1), first)
			bots[1-first] = houseBot(t, opponent, rng.Mix(seed, 2), 1-first)
			playGame(t, s, bots)
			runs[r] = s.moves
		}
		if fmt.Sprint(runs[0]) != fmt.Sprint(runs[1]) {
			t.Fatalf("seed %d %v: the two runs drew different lines:\n%v\n%v", seed, params, runs[0], runs[1])
		}
	}
}

// TestDeepSearchTakesTheFreeBox: on an otherwise empty 3x3 board, a box
// with three sides is there for the taking, and taking it gives nothing.
func TestDeepSearchTakesTheFreeBox(t *testing.T) {
	// Box A1 has three sides (top, left, bottom); its right side B1-B2 takes it.
	s, err := NewState(1, game.Params{"rows": "3", "cols": "3", "board": "A1-B1,A1-A2,A2-B2"})
	if err != nil {
		t.Fatal(err)
	}
	got := string(houseBot(t, "search-deep", 1, 0).Act(s, 0))
	if got != `{"from":"B1","to":"B2"}` && got != `{"from":"B1","to":"B3"}` && got != `{"from":"B1","to":"B4"}` {
		t.Fatalf("search-deep answered %s, want a line through B1-B2 that takes box A1", got)
	}
}
