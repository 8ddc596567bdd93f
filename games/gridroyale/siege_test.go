package gridroyale

import (
	"strings"
	"testing"
)

// TestSiegeLegalAndDeterministic plays siege against every other house bot,
// itself included, in 2- and 4-player matches over several seeds, twice
// each: every answer must be legal (playMatch fails on any other status) and
// the two runs must pass through the same states.
func TestSiegeLegalAndDeterministic(t *testing.T) {
	lineups := [][]string{
		{"siege", "house"}, {"harvester", "siege"}, {"siege", "siege"}, {"idle", "siege"},
		{"house", "siege", "harvester", "siege"}, {"siege", "idle", "house", "house"},
	}
	seeds := 3
	if testing.Short() {
		seeds = 1
	}
	for _, names := range lineups {
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			a := matchHashes(t, seed, names)
			b := matchHashes(t, seed, names)
			if len(a) != len(b) {
				t.Fatalf("%v seed %d: %d turns, then %d", names, seed, len(a), len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("%v seed %d: the state differs after turn %d", names, seed, i+1)
				}
			}
		}
	}
}

// matchHashes plays one match between house bots and returns the state's
// hash after every turn; any answer that is not ok fails the test.
func matchHashes(t *testing.T, seed uint64, names []string) []uint64 {
	t.Helper()
	var hashes []uint64
	playMatchHashes(t, seed, names, &hashes)
	return hashes
}

// TestSiegeBeatsHouse is the quick form of the strength table in
// docs/bots-strength.md: siege in every seat of 2-player matches against
// house, and in every seat of 4-player matches against three houses, must
// place first in at least 80% of them (it wins all of these). With -short,
// half as many.
func TestSiegeBeatsHouse(t *testing.T) {
	cases := []struct{ players, seeds int }{{2, 8}, {4, 4}}
	if testing.Short() {
		cases = []struct{ players, seeds int }{{2, 4}, {4, 2}}
	}
	for _, tc := range cases {
		wins, n := winCount(t, "siege", "house", tc.players, tc.seeds, true)
		if wins*10 < n*8 {
			t.Errorf("%d players: siege placed first in %d of %d matches against house, want at least 80%%", tc.players, wins, n)
		}
	}
}

// sentryBoard is a 2-player board with no ore: our unit 1 stands beside the
// rival's base (14, 14) on its west side, and a rival unit carrying cargo
// stands on its north side, one step from home.
func sentryBoard(t *testing.T, cargo int) *State {
	s := board(t, 2)
	put(s, 0, 13, 14, 0)
	put(s, 1, 14, 13, cargo)
	return s
}

func TestSentryHoldsItsPost(t *testing.T) {
	// A full rival unit, modelled as house, will not step onto a base the
	// sentry can reach: the sentry stays beside it (an empty batch).
	s := sentryBoard(t, 1000)
	if ans := string(houseBot(t, "siege").New(1, 0).Act(s, 0)); ans != `{"orders":[]}` {
		t.Fatalf("siege answered %s, want its sentry to stay", ans)
	}
}

func TestSentryRamsAnArrival(t *testing.T) {
	// With no ore left to dig, a rival carrying 250 (too little for house to
	// fear the sentry) heads home: the sentry steps onto the base with it.
	s := sentryBoard(t, 250)
	if ans := string(houseBot(t, "siege").New(1, 0).Act(s, 0)); !strings.Contains(ans, `{"unit":1,"do":"MOVE_E"}`) {
		t.Fatalf("siege answered %s, want unit 1 to ram the base", ans)
	}
	// One that carries no more than the sentry is not worth a unit.
	s = sentryBoard(t, 50)
	if ans := string(houseBot(t, "siege").New(1, 0).Act(s, 0)); strings.Contains(ans, "MOVE") {
		t.Fatalf("siege answered %s for a rival carrying 50, want no ram", ans)
	}
}

func TestSentryWalksToTheRivalBase(t *testing.T) {
	// The only unit, at home with nothing to dig, becomes the sentry and sets
	// off towards the rival base (east or south).
	s := board(t, 2)
	bx, by := BasePos(s.W, 2, 0)
	put(s, 0, bx, by, 0)
	ans := string(houseBot(t, "siege").New(1, 0).Act(s, 0))
	if !strings.Contains(ans, `"MOVE_E"`) && !strings.Contains(ans, `"MOVE_S"`) {
		t.Fatalf("siege answered %s, want its unit to head for the rival base", ans)
	}
}

// BenchmarkSiegeAct measures one answer of siege in seat 0 of a 4-player
// match against three houses at turn 100; it runs two model planners per
// rival besides its own.
func BenchmarkSiegeAct(b *testing.B) {
	benchBotAct(b, "siege", "house")
}
