package dotsandboxes

import (
	"testing"
	"time"
)

// benchPositions are the positions chains meets as the mover in a few
// matches against itself: every stage of a real game, opening to endgame.
func benchPositions(b *testing.B) []Board {
	var out []Board
	for seed := int64(1); seed <= 3; seed++ {
		st := NewState(seed)
		bots := [2]*chainsBot{{}, {}}
		for !st.Over() {
			out = append(out, st.Board)
			st.Play(bots[st.ToMove].choose(st, int(st.ToMove)))
		}
	}
	if len(out) == 0 {
		b.Fatal("no positions")
	}
	return out
}

// BenchmarkSearchMove times one move of builtin:search from a cold table on
// positions from every stage of a game, and reports its mean and worst
// times and the nodes it searches per second. Moves in a match are cheaper:
// the table carries over from the previous move.
func BenchmarkSearchMove(b *testing.B) {
	positions := benchPositions(b)
	nodes := 0
	var worst time.Duration
	i := 0
	for b.Loop() {
		pos := positions[i%len(positions)]
		i++
		s := newSearcher(levelHard)
		t0 := time.Now()
		s.bestMove(&pos)
		worst = max(worst, time.Since(t0))
		nodes += s.nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(i), "ms/move")
	b.ReportMetric(float64(worst.Milliseconds()), "worst-ms")
}
