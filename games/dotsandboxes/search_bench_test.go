package dotsandboxes

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the CPU time of the calling OS thread: on a shared machine
// it measures the work of one move, where the wall clock measures the queue.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD on Linux
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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

// BenchmarkSearchMove times one move of each level of builtin:search from
// a cold table on positions from every stage of a game, and reports its
// mean and worst CPU time (Linux thread time, so that other people's load
// on the machine does not count) and the nodes it searches per CPU second.
// Moves in a match are cheaper: the table carries over from the previous
// move. The levels are limited by nodes, so the work of a move is the same
// on every run; only its time varies with the machine.
func BenchmarkSearchMove(b *testing.B) {
	for _, lv := range []struct {
		name string
		lv   searchLevel
	}{{"easy", levelEasy}, {"medium", levelMedium}, {"hard", levelHard}} {
		b.Run(lv.name, func(b *testing.B) { benchSearchLevel(b, lv.lv) })
	}
}

func benchSearchLevel(b *testing.B, lv searchLevel) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	positions := benchPositions(b)
	nodes := 0
	var worst, total time.Duration
	i := 0
	for b.Loop() {
		pos := positions[i%len(positions)]
		i++
		d, n := timedMove(lv, &pos)
		worst = max(worst, d)
		total += d
		nodes += n
	}
	b.ReportMetric(float64(nodes)/total.Seconds(), "nodes/cpu-s")
	b.ReportMetric(float64(total.Microseconds())/1000/float64(i), "cpu-ms/move")
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-cpu-ms")
	b.ReportMetric(float64(nodes)/float64(i), "nodes/move")
}

// timedMove makes one move of level lv from a cold table and returns the
// thread's CPU time it took and the nodes it searched. The caller locks
// its OS thread.
func timedMove(lv searchLevel, b *Board) (time.Duration, int) {
	s := newSearcher(lv)
	t0 := threadCPU()
	s.bestMove(b)
	return threadCPU() - t0, s.nodes
}
