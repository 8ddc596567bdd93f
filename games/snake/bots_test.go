package snake

import (
	"os"
	"strconv"
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// playHouse plays one match of house bots (by name, in seat order) and
// returns the final state.
func playHouse(t testing.TB, seed uint64, set Settings, names ...string) *State {
	t.Helper()
	bots := make([]game.HouseBot, len(names))
	for seat, name := range names {
		for _, info := range (Game{}).HouseBots() {
			if info.Name == name {
				bots[seat] = info.New(rng.Mix(seed, uint64(seat)), seat)
			}
		}
		if bots[seat] == nil {
			t.Fatalf("no house bot %q", name)
		}
	}
	s := NewState(set, len(names), seed)
	for !s.Done() {
		answers := make([][]byte, s.N)
		for _, seat := range s.Asked() {
			answers[seat] = bots[seat].Act(s, seat)
		}
		for seat, v := range s.Apply(answers) {
			if answers[seat] != nil && v.Status != game.OK {
				t.Fatalf("seed %d turn %d: %s's answer %s got %s (%s)", seed, s.TurnNum, names[seat], answers[seat], v.Status, v.Reason)
			}
		}
	}
	return s
}

// duel plays a against b on boards 1..n, each in both seat orders, and
// returns a's wins, losses and shared places.
func duel(t testing.TB, a, b string, n int) (wins, losses, ties int) {
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for swap := 0; swap < 2; swap++ {
			names, me := []string{a, b}, 0
			if swap == 1 {
				names, me = []string{b, a}, 1
			}
			s := playHouse(t, seed, DefaultSettings(), names...)
			sc := s.Scores()
			switch {
			case sc[me] > sc[1-me]:
				wins++
			case sc[me] < sc[1-me]:
				losses++
			default:
				ties++
			}
		}
	}
	return
}

// boards is how many boards the strength tests play: 10, or
// $SNAKE_BOARDS for the figures in docs/bots-strength.md.
func boards(t *testing.T) int {
	n := 10
	if v := os.Getenv("SNAKE_BOARDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("SNAKE_BOARDS=%q: want a positive number", v)
		}
	}
	return n
}

// TestSearchBeatsSafe: the strong house bot wins the large majority of
// seat-balanced matches against safe, two-handed and against three safes.
func TestSearchBeatsSafe(t *testing.T) {
	n := boards(t)
	w, l, d := duel(t, "search", "safe", n)
	t.Logf("search against safe: %d won, %d lost, %d shared of %d", w, l, d, w+l+d)
	if w < 8*(w+l+d)/10 {
		t.Fatalf("search won %d of %d against safe; want at least 80%%", w, w+l+d)
	}
	// Four players: search in each seat against three safes; a win is
	// placing first alone.
	wins, games := 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for seat := range 4 {
			names := []string{"safe", "safe", "safe", "safe"}
			names[seat] = "search"
			s := playHouse(t, seed, DefaultSettings(), names...)
			sc := s.Scores()
			games++
			if p := s.Placement(); p[0] == seat && sc[p[1]] < sc[seat] {
				wins++
			}
		}
	}
	t.Logf("search against three safes: first in %d of %d", wins, games)
	if wins < 6*games/10 {
		t.Fatalf("search placed first in %d of %d four-player matches; want at least 60%%", wins, games)
	}
}

// TestSafeBeatsRandom: never walking into certain death is enough to beat
// a random mover nearly always.
func TestSafeBeatsRandom(t *testing.T) {
	w, l, d := duel(t, "safe", "random", boards(t))
	t.Logf("safe against random: %d won, %d lost, %d shared", w, l, d)
	if w < 8*(w+l+d)/10 {
		t.Fatalf("safe won %d of %d against random; want at least 80%%", w, w+l+d)
	}
}

// TestGreedyBetweenSafeAndSearch: the Play page's levels go up in strength,
// safe (Easy), greedy (Medium), search (Hard).
func TestGreedyBetweenSafeAndSearch(t *testing.T) {
	n := boards(t)
	w, l, d := duel(t, "greedy", "safe", n)
	t.Logf("greedy against safe: %d won, %d lost, %d shared", w, l, d)
	if w <= l {
		t.Errorf("greedy won %d and lost %d against safe; want more wins", w, l)
	}
	w, l, d = duel(t, "search", "greedy", n)
	t.Logf("search against greedy: %d won, %d lost, %d shared", w, l, d)
	if w <= l {
		t.Errorf("search won %d and lost %d against greedy; want more wins", w, l)
	}
}
