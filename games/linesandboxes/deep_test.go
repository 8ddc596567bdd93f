package linesandboxes

import (
	"fmt"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// TestDeepSearchLegalAndDeterministic plays search-deep and strong against
// search, greedy and themselves on 3x3 and 3x4 boards (small, to keep the
// test quick), with random pre-drawn lines, twice each: every answer must be
// legal (playGame fails on any other status) and both runs must draw the
// same lines.
func TestDeepSearchLegalAndDeterministic(t *testing.T) {
	for _, bot := range []string{"search-deep", "strong"} {
		t.Run(bot, func(t *testing.T) { testLegalAndDeterministic(t, bot) })
	}
}

func testLegalAndDeterministic(t *testing.T, bot string) {
	seeds := 4
	if testing.Short() {
		seeds = 2
	}
	for i := 0; i < seeds; i++ {
		seed := uint64(300 + i)
		params := game.Params{"rows": "3", "cols": fmt.Sprint(3 + i/3%2), "predrawn": "-1"}
		opponent := []string{"search", "greedy", bot}[i%3]
		var runs [2][]Move
		for r := range runs {
			s, err := NewState(seed, params)
			if err != nil {
				t.Fatal(err)
			}
			first := i % 2
			var bots [2]game.HouseBot
			bots[first] = houseBot(t, bot, rng.Mix(seed, 1), first)
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

// TestDeepSearchKeepsExactValue: from 18 edges left search-deep's exact
// attempt finishes on these positions, so its move must keep the value the
// separate exact solver gives; so must strong's, which may choose another
// move of the same value. The positions come from greedy games on fixed
// seeds (4x4 and 4x5 boards with random pre-drawn lines), taken once at
// most 18, 17, 15, 13 and 11 edges are left.
func TestDeepSearchKeepsExactValue(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	judged, searchKept := 0, 0
	for i := 0; i < seeds; i++ {
		seed := uint64(700 + i)
		s, err := NewState(seed, game.Params{"rows": "4", "cols": fmt.Sprint(4 + i%2), "predrawn": "-1"})
		if err != nil {
			t.Fatal(err)
		}
		x := newExactSolver(s.g)
		greedy := [2]game.HouseBot{houseBot(t, "greedy", seed, 0), houseBot(t, "greedy", seed+1, 1)}
		next := 0 // the next of the thresholds below
		for !s.Done() {
			if thresholds := []int{18, 17, 15, 13, 11}; next < len(thresholds) && s.left <= thresholds[next] {
				for next < len(thresholds) && s.left <= thresholds[next] {
					next++
				}
				want := x.value(s.drawn)
				for _, name := range []string{"search-deep", "strong", "search"} {
					c := *s
					c.moves = append([]Move(nil), s.moves...)
					c.owner = append([]int8(nil), s.owner...)
					seat := c.ToMove()
					before := c.scores[seat]
					c.Apply(answersFor(seat, houseBot(t, name, 1, seat).Act(&c, seat)))
					got := int(c.scores[seat]-before) - x.value(c.drawn)
					switch {
					case name == "search" && got == want:
						searchKept++
					case name != "search" && got != want:
						t.Errorf("seed %d, %d edges left: %s's move is worth %d, the position %d", seed, s.left, name, got, want)
					}
				}
				judged++
			}
			seat := s.ToMove()
			s.Apply(answersFor(seat, greedy[seat].Act(s, seat)))
		}
	}
	t.Logf("%d positions: search-deep and strong kept the exact value on all, search on %d", judged, searchKept)
	if judged < 2*seeds {
		t.Fatalf("only %d positions judged", judged)
	}
}
