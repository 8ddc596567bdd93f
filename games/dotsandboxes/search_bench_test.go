package dotsandboxes

import (
	"testing"
	"time"
)

// TestSearchTiming plays one game search vs chains and logs the time per move.
func TestSearchTiming(t *testing.T) {
	st := NewState(7)
	bots := [2]*searchBot{{lv: levelHard}, nil}
	ch := &chainsBot{}
	var worst time.Duration
	var total time.Duration
	moves := 0
	for !st.Over() {
		if st.ToMove == 0 {
			t0 := time.Now()
			bots[0].Act(st, 0)
			d := time.Since(t0)
			total += d
			moves++
			if d > worst {
				worst = d
			}
			t.Logf("turn %d: %v nodes %d", st.Turn(), d, bots[0].s.nodes)
			e := bots[0].s.lastMove
			st.Play(e)
		} else {
			st.Play(ch.choose(st, 1))
		}
	}
	t.Logf("mean %v worst %v score %d-%d", total/time.Duration(moves), worst, st.Score(0), st.Score(1))
}
