package linesandboxes

import (
	"syscall"
	"testing"
	"time"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// houseBot makes the named house bot for one seat.
func houseBot(t testing.TB, name string, seed uint64, seat int) game.HouseBot {
	t.Helper()
	for _, info := range (Game{}).HouseBots() {
		if info.Name == name {
			return info.New(seed, seat)
		}
	}
	t.Fatalf("no house bot %q", name)
	return nil
}

// playGame plays one game between two house bots through Apply, as the
// runner does, and fails on any answer that is not ok.
func playGame(t testing.TB, s *State, bots [2]game.HouseBot) {
	t.Helper()
	for !s.Done() {
		seat := s.ToMove()
		answers := make([][]byte, 2)
		answers[seat] = bots[seat].Act(s, seat)
		v := s.Apply(answers)
		if v[seat].Status != game.OK {
			t.Fatalf("turn %d: seat %d answer %s got %s: %s", s.Turn(), seat, answers[seat], v[seat].Status, v[seat].Reason)
		}
	}
}

// randomBoard is a board of random size with a random number of pre-drawn lines.
func randomBoard(t testing.TB, seed uint64) *State {
	t.Helper()
	s, err := NewState(seed, game.Params{"rows": "0", "cols": "0", "predrawn": "-1"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// playMatch plays the contest's match: two games on one board, seats swapped.
// It returns a's and b's match points (2 a win, 1 a tie) and boxes.
func playMatch(t testing.TB, a, b string, seed uint64) (points, boxes [2]int64) {
	for first := 0; first < 2; first++ {
		s := randomBoard(t, seed)
		var bots [2]game.HouseBot
		bots[first] = houseBot(t, a, rng.Mix(seed, 1), first)
		bots[1-first] = houseBot(t, b, rng.Mix(seed, 2), 1-first)
		playGame(t, s, bots)
		sa, sb := s.scores[first], s.scores[1-first]
		boxes[0] += sa
		boxes[1] += sb
		switch {
		case sa > sb:
			points[0] += 2
		case sb > sa:
			points[1] += 2
		default:
			points[0]++
			points[1]++
		}
	}
	return points, boxes
}

// TestSearchBeatsGreedy checks the brief's bar: search wins at least 90% of
// seat-swapped matches against greedy over random boards of every size. A
// match is won on match points, then on total boxes (the contest's tie-break).
func TestSearchBeatsGreedy(t *testing.T) {
	matches := 60
	if testing.Short() {
		matches = 20
	}
	wins := 0
	start := time.Now()
	for i := 0; i < matches; i++ {
		pts, boxes := playMatch(t, "search", "greedy", uint64(1000+i))
		won := pts[0] > pts[1] || (pts[0] == pts[1] && boxes[0] > boxes[1])
		if won {
			wins++
		} else {
			s := randomBoard(t, uint64(1000+i))
			t.Logf("match %d (%dx%d): points %v boxes %v", i, s.Rows(), s.Cols(), pts, boxes)
		}
	}
	t.Logf("search won %d of %d matches against greedy in %v", wins, matches, time.Since(start))
	if wins*10 < matches*9 {
		t.Errorf("search won %d of %d matches, want at least 90%%", wins, matches)
	}
}

// BenchmarkSearchMove times the search's moves over whole games on the
// largest board against greedy, and reports the slowest one.
func BenchmarkSearchMove(b *testing.B) { benchMoves(b, "search") }

// BenchmarkDeepSearchMove is the same for search-deep.
func BenchmarkDeepSearchMove(b *testing.B) { benchMoves(b, "search-deep") }

// BenchmarkStrongMove is the same for strong.
func BenchmarkStrongMove(b *testing.B) { benchMoves(b, "strong") }

// benchMoves plays the named bot as seat 0 against greedy on 8x8 boards
// with random pre-drawn lines, one benchmark op per move of the bot. Besides
// the wall time per op it reports the slowest move in wall time and in
// process CPU time, and the mean CPU time per move: a loaded machine
// inflates the wall clock, not the CPU time.
func benchMoves(b *testing.B, name string) {
	var worst, worstCPU, cpu time.Duration
	moves := 0
	for i := 0; i < b.N; {
		s, err := NewState(uint64(i), game.Params{"rows": "8", "cols": "8", "predrawn": "-1"})
		if err != nil {
			b.Fatal(err)
		}
		bots := [2]game.HouseBot{houseBot(b, name, 1, 0), houseBot(b, "greedy", 1, 1)}
		for !s.Done() && i < b.N {
			seat := s.ToMove()
			start, cpu0 := time.Now(), cpuTime()
			line := bots[seat].Act(s, seat)
			if seat == 0 {
				worst = max(worst, time.Since(start))
				c := cpuTime() - cpu0
				worstCPU = max(worstCPU, c)
				cpu += c
				moves++
				i++
			}
			s.Apply(answersFor(seat, line))
		}
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
	b.ReportMetric(float64(worstCPU.Microseconds())/1000, "worst-cpu-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(moves), "cpu-ms/move")
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func answersFor(seat int, line []byte) [][]byte {
	a := make([][]byte, 2)
	a[seat] = line
	return a
}
