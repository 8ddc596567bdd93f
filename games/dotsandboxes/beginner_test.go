package dotsandboxes

import (
	"math/bits"
	"testing"

	"github.com/arenabots/arena/internal/rng"
)

// slipCounts asks fresh beginner bots (seeds 1..n) for their move on bd and
// counts how many answers fall in mask.
func slipCounts(t *testing.T, bd Board, mask uint64, n int) int {
	t.Helper()
	in := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		b := newBeginnerBot(seed).(*beginnerBot)
		e := b.choose(&bd)
		if bd.Drawn&(1<<uint(e)) != 0 {
			t.Fatalf("seed %d: edge %d is drawn", seed, e)
		}
		if mask&(1<<uint(e)) != 0 {
			in++
		}
	}
	return in
}

// TestBeginnerSlips builds one position of each kind by hand and checks that
// the bot mostly plays the careful move and sometimes the slip, at about the
// documented rate (the seeds are fixed, so the counts are too).
func TestBeginnerSlips(t *testing.T) {
	const n = 600
	t.Run("overlooks a box", func(t *testing.T) {
		// Box (0,0) has three sides; most of the board is empty.
		var bd Board
		bd.Play(H(0, 0))
		bd.Play(V(0, 0))
		bd.Play(H(1, 0))
		closing, safe, _ := bd.classify()
		if closing != 1<<uint(V(0, 1)) || safe == 0 {
			t.Fatalf("position: closing %x safe %x", closing, safe)
		}
		took := slipCounts(t, bd, closing, n)
		missed := slipCounts(t, bd, safe, n)
		if took+missed != n {
			t.Fatalf("%d captures and %d safe edges of %d answers", took, missed, n)
		}
		// One in missCapture: about 100 of 600.
		if missed < n/missCapture/2 || missed > 2*n/missCapture {
			t.Errorf("overlooked the box %d times of %d, want about %d", missed, n, n/missCapture)
		}
	})
	t.Run("draws a third side", func(t *testing.T) {
		var bd Board
		bd.Play(H(0, 0))
		bd.Play(V(0, 0)) // box (0,0) has two sides: its others are unsafe
		closing, safe, unsafe := bd.classify()
		if closing != 0 || safe == 0 || unsafe == 0 {
			t.Fatalf("position: closing %x safe %x unsafe %x", closing, safe, unsafe)
		}
		bad := slipCounts(t, bd, unsafe, n)
		if bad < n/missSafe/2 || bad > 2*n/missSafe {
			t.Errorf("drew a third side %d times of %d, want about %d", bad, n, n/missSafe)
		}
	})
	t.Run("opens the wrong chain", func(t *testing.T) {
		// Careful random play (captures first, then safe edges) from fixed
		// seeds, stopped where every edge opens something; the first such
		// position whose two cheapest openings differ in size is the test.
		bd, ok := loonyWithChoice()
		if !ok {
			t.Fatal("no seed gave a position with two openings of different sizes")
		}
		_, _, unsafe := bd.classify()
		opens := openings(&bd, unsafe, NumBoxes)
		cheapest := uint64(1) << uint(opens[0])
		careful := slipCounts(t, bd, cheapest, n)
		if wrong := n - careful; wrong < n/missOpen/2 || wrong > 2*n/missOpen {
			t.Errorf("opened another chain %d times of %d, want about %d", wrong, n, n/missOpen)
		}
	})
}

// loonyWithChoice plays greedy games from fixed seeds to the first position
// with no capture and no safe edge whose two cheapest openings hand over a
// different number of boxes.
func loonyWithChoice() (Board, bool) {
	for seed := uint64(1); seed <= 50; seed++ {
		src := rng.New(seed)
		var bd Board
		for !bd.Over() {
			closing, safe, unsafe := bd.classify()
			switch {
			case closing != 0:
				bd.Play(nthBit(closing, src.Intn(bits.OnesCount64(closing))))
				continue
			case safe != 0:
				bd.Play(nthBit(safe, src.Intn(bits.OnesCount64(safe))))
				continue
			}
			opens := openings(&bd, unsafe, NumBoxes)
			if len(opens) >= 2 && gift(bd, opens[0]) < gift(bd, opens[1]) {
				return bd, true
			}
			break
		}
	}
	return Board{}, false
}

// gift is how many boxes opening e hands the opponent.
func gift(bd Board, e Edge) int {
	before := bits.OnesCount32(bd.Owned[0] | bd.Owned[1])
	bd.Play(e)
	bd.takeAll()
	return bits.OnesCount32(bd.Owned[0]|bd.Owned[1]) - before
}
