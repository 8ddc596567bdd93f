package gridroyale

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/arenabots/arena/game"
)

// playMatch runs a whole match between house bots named by names (one per
// seat) through the JSON interface, as the runner does. Every answer of a
// house bot must be legal.
func playMatch(t testing.TB, seed uint64, names ...string) *State {
	t.Helper()
	return playMatchHashes(t, seed, names, nil)
}

// playMatchHashes is playMatch that also appends the state's hash after
// every turn to *hashes, when hashes is not nil.
func playMatchHashes(t testing.TB, seed uint64, names []string, hashes *[]uint64) *State {
	t.Helper()
	st, err := Game{}.New(game.Config{Seed: seed, Players: len(names)})
	if err != nil {
		t.Fatal(err)
	}
	bots := make([]game.HouseBot, len(names))
	for seat, name := range names {
		bots[seat] = houseBot(t, name).New(seed, seat)
	}
	answers := make([][]byte, len(names))
	for !st.Done() {
		clear(answers)
		for _, seat := range st.Asked() {
			answers[seat] = bots[seat].Act(st, seat)
		}
		for seat, v := range st.Apply(answers) {
			if v.Status != "" && v.Status != game.OK {
				t.Fatalf("%v seed %d turn %d: %s's answer %s: %s %s", names, seed, st.Turn(), names[seat], answers[seat], v.Status, v.Reason)
			}
		}
		if hashes != nil {
			*hashes = append(*hashes, st.(*State).Hash())
		}
	}
	return st.(*State)
}

// houseWinRate plays house against harvesters. With 2 players house plays
// both seats of every seed; with 4 it sits in seat seed%4 against three
// harvesters. It returns the share of matches house placed first in.
func houseWinRate(t *testing.T, players, seeds int) float64 {
	t.Helper()
	wins, matches := winCount(t, "house", "harvester", players, seeds, players == 2)
	t.Logf("%d players: house won %d of %d", players, wins, matches)
	return float64(wins) / float64(matches)
}

// winCount plays bot against rival, the rival in every other seat, on seeds
// 1..seeds: bot in every seat of every seed when allSeats, else in seat
// seed%players. It returns the matches bot placed first in, and how many
// it played.
func winCount(t *testing.T, bot, rival string, players, seeds int, allSeats bool) (wins, matches int) {
	t.Helper()
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		for seat := 0; seat < players; seat++ {
			if !allSeats && seat != int(seed)%players {
				continue
			}
			names := make([]string, players)
			for i := range names {
				names[i] = rival
			}
			names[seat] = bot
			s := playMatch(t, seed, names...)
			matches++
			if s.Placement()[0] == seat {
				wins++
			} else {
				t.Logf("seed %d: %s in seat %d placed %v, banks %v", seed, bot, seat, s.Placement(), s.Banks)
			}
		}
	}
	return wins, matches
}

func TestHouseBeatsHarvester(t *testing.T) {
	if r := houseWinRate(t, 2, 30); r < 0.9 {
		t.Errorf("2 players: house won %.0f%% of 60 seat-rotated matches, want at least 90%%", 100*r)
	}
	if r := houseWinRate(t, 4, 40); r < 0.8 {
		t.Errorf("4 players: house won %.0f%% of 40 matches against three harvesters, want at least 80%%", 100*r)
	}
}

// TestHouseBeatsHarvesterBigSample is the same over 200 and 100 more
// matches; skipped with -short.
func TestHouseBeatsHarvesterBigSample(t *testing.T) {
	if testing.Short() {
		t.Skip("a bigger sample; run without -short")
	}
	if r := houseWinRate(t, 2, 100); r < 0.9 {
		t.Errorf("2 players: house won %.0f%% of 200 matches", 100*r)
	}
	if r := houseWinRate(t, 4, 100); r < 0.8 {
		t.Errorf("4 players: house won %.0f%% of 100 matches", 100*r)
	}
}

func TestHarvesterBeatsIdle(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		s := playMatch(t, seed, "idle", "harvester")
		if s.Placement()[0] != 1 || s.Banks[0] != StartBank {
			t.Errorf("seed %d: harvester vs idle banks %v", seed, s.Banks)
		}
	}
}

func TestIdleNeverOrders(t *testing.T) {
	st, _ := Game{}.New(game.Config{Seed: 1, Players: 2})
	if got := string(houseBot(t, "idle").New(1, 0).Act(st, 0)); got != `{"orders":[]}` {
		t.Fatalf("idle answered %s", got)
	}
}

func TestHouseClearsItsBase(t *testing.T) {
	for _, name := range []string{"harvester", "house"} {
		s := board(t, 2)
		bx, by := BasePos(s.W, 2, 0)
		put(s, 1, bx, by, 0)     // unit 1, an enemy on our base
		put(s, 0, bx+1, by, 800) // unit 2, ours, laden, beside it
		ans := houseBot(t, name).New(1, 0).Act(s, 0)
		if !strings.Contains(string(ans), `{"unit":2,"do":"MOVE_W"}`) {
			t.Errorf("%s: with an enemy on its base it answered %s, want unit 2 to ram it", name, ans)
		}
	}
}

func TestHouseRamsAStuckLadenEnemy(t *testing.T) {
	s := board(t, 2)
	s.setOre(6, 5, 3000) // the enemy cannot pay the 300 to leave
	put(s, 1, 6, 5, 200)
	put(s, 0, 5, 5, 0)
	if ans := string(houseBot(t, "house").New(1, 0).Act(s, 0)); !strings.Contains(ans, `{"unit":2,"do":"MOVE_E"}`) {
		t.Fatalf("house answered %s, want the ram", ans)
	}
	if ans := string(houseBot(t, "harvester").New(1, 0).Act(s, 0)); strings.Contains(ans, `"MOVE_E"`) {
		t.Fatalf("harvester answered %s: it never rams", ans)
	}
}

func TestLadenHouseUnitSteersClearOfEnemies(t *testing.T) {
	s := board(t, 2)
	put(s, 0, 5, 5, 900) // laden, on its way home east-south
	put(s, 1, 7, 5, 0)   // an enemy that can step onto (6,5)
	ans := string(houseBot(t, "house").New(1, 0).Act(s, 0))
	if strings.Contains(ans, `"MOVE_E"`) {
		t.Fatalf("house answered %s: a laden unit stepped next to an enemy", ans)
	}
}

// BenchmarkHouseAct measures one answer of the house bot in a 4-player
// match at turn 100 (about 30 units a player).
func BenchmarkHouseAct(b *testing.B) {
	benchBotAct(b, "house", "house")
}

func BenchmarkHarvesterAct(b *testing.B) {
	benchBotAct(b, "harvester", "harvester")
}

// benchBotAct plays name in seat 0 against three rivals up to turn 100 and
// measures seat 0's answers there, in wall and in process CPU time.
func benchBotAct(b *testing.B, name, rivals string) {
	st, _ := Game{}.New(game.Config{Seed: 9, Players: 4})
	bots := make([]game.HouseBot, 4)
	for seat := range bots {
		n := rivals
		if seat == 0 {
			n = name
		}
		bots[seat] = houseBot(b, n).New(uint64(seat), seat)
	}
	answers := make([][]byte, 4)
	for st.Turn() < 100 {
		for seat := range answers {
			answers[seat] = bots[seat].Act(st, seat)
		}
		st.Apply(answers)
	}
	cpu0 := cpuTime()
	for b.Loop() {
		bots[0].Act(st, 0)
	}
	b.ReportMetric(float64(st.(*State).UnitCount(0)), "units")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
}

// cpuTime is the CPU time (user and system) the process has used: on a
// loaded machine it stays near the work done where the wall clock does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestBotsActConcurrently asks every seat at once on the same state, as the
// runner does; run with -race to see that the bots only read it.
func TestBotsActConcurrently(t *testing.T) {
	st, _ := Game{}.New(game.Config{Seed: 4, Players: 4})
	names := []string{"house", "harvester", "house", "idle"}
	bots := make([]game.HouseBot, 4)
	for seat, name := range names {
		bots[seat] = houseBot(t, name).New(4, seat)
	}
	answers := make([][]byte, 4)
	for st.Turn() < 60 {
		var wg sync.WaitGroup
		for _, seat := range st.Asked() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[seat] = bots[seat].Act(st, seat)
				_ = st.AppendObservation(nil, seat)
			}()
		}
		wg.Wait()
		for seat, v := range st.Apply(answers) {
			if v.Status != game.OK {
				t.Fatalf("turn %d seat %d: %+v", st.Turn(), seat, v)
			}
		}
	}
}
