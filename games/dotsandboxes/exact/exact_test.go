package exact

import (
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"testing"
)

// Values worked out by hand: on 1x1 the first player draws two of the four
// sides and the second closes the box.
func TestTinyBoards(t *testing.T) {
	s, err := New(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Value(0); v != -1 {
		t.Errorf("1x1: value %d, want -1 (the second player closes the box)", v)
	}
	// One side left: the mover closes the box.
	if v := s.Value(0b0111); v != 1 {
		t.Errorf("1x1 with three sides drawn: value %d, want 1", v)
	}
	// Two sides left: whoever draws one gives the box away.
	if v := s.Value(0b0011); v != -1 {
		t.Errorf("1x1 with two sides drawn: value %d, want -1", v)
	}
}

// TestTwoByTwo checks the 2x2 board (9 dots), a first-player win, the
// published answer (Berlekamp's Winning Ways discusses it), and its value.
func TestTwoByTwo(t *testing.T) {
	s, err := New(2, 2)
	if err != nil {
		t.Fatal(err)
	}
	v := s.Value(0)
	if v <= 0 {
		t.Fatalf("2x2: value %d, want a first-player win", v)
	}
	t.Logf("2x2: first player wins by %d", v)
	// The value of a position is the best of its moves.
	best := -100
	for e := 0; e < s.Edges(); e++ {
		best = max(best, s.Move(0, e))
	}
	if best != v {
		t.Errorf("2x2: best move worth %d, value %d", best, v)
	}
}

// TestThreeByThree solves the 3x3 board (16 dots, 24 edges) in full: about
// 16 million positions, a few seconds.
func TestThreeByThree(t *testing.T) {
	if testing.Short() {
		t.Skip("solves 16 million positions")
	}
	s, err := New(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	v := s.Value(0)
	t.Logf("3x3: first player's margin %d", v)
	// Pinned: the second player wins 6-3 (docs/bots-strength.md compares
	// it with the published values).
	if v != -3 {
		t.Errorf("3x3: value %d, want -3", v)
	}
}

func TestTooLarge(t *testing.T) {
	if _, err := New(5, 6); err == nil {
		t.Error("5x6 has 71 edges, want an error")
	}
}

// TestFocusAgreesWithMap solves positions of the 5x5 board with 14 free
// edges (random ones, fixed seed) twice, with the map memo and with Focus's
// dense one: every move's value must agree.
func TestFocusAgreesWithMap(t *testing.T) {
	s, err := New(5, 5)
	if err != nil {
		t.Fatal(err)
	}
	all := uint64(1)<<s.Edges() - 1
	x := uint64(12345)
	for pos := 0; pos < 20; pos++ {
		// Draw all but 14 edges, chosen by a xorshift stream.
		drawn := all
		for bits.OnesCount64(drawn) > s.Edges()-14 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			drawn &^= 1 << (x % uint64(s.Edges()))
		}
		var plain []int
		s.Forget()
		for m := all &^ drawn; m != 0; m &= m - 1 {
			plain = append(plain, s.Move(drawn, bits.TrailingZeros64(m)))
		}
		s.Focus(drawn)
		i := 0
		for m := all &^ drawn; m != 0; m &= m - 1 {
			if v := s.Move(drawn, bits.TrailingZeros64(m)); v != plain[i] {
				t.Fatalf("position %x, edge %d: %d with Focus, %d without", drawn, bits.TrailingZeros64(m), v, plain[i])
			}
			i++
		}
		if len(s.memo) != 0 {
			t.Fatalf("position %x: Focus still used the map (%d entries)", drawn, len(s.memo))
		}
	}
}

// randomPosition draws all but free edges of a rows x cols board in an
// order taken from a xorshift stream.
func randomPosition(edges, free int, x *uint64) uint64 {
	all := ^uint64(0) >> (64 - edges)
	drawn := uint64(0)
	for bits.OnesCount64(drawn) < edges-free {
		*x ^= *x << 13
		*x ^= *x >> 7
		*x ^= *x << 17
		drawn |= 1 << (*x % uint64(edges))
	}
	return drawn & all
}

// TestAlphaBetaAgreesWithBruteForce checks the alpha-beta solver, which
// assumes the capture rules, against the brute-force one, which assumes
// nothing, on random positions of several boards: the value of every
// position and of every move from it must agree. EXACT_SCALE=k checks k
// times as many positions (k=20 is the run docs/bots-strength.md cites).
func TestAlphaBetaAgreesWithBruteForce(t *testing.T) {
	scale := 1
	if k, err := strconv.Atoi(os.Getenv("EXACT_SCALE")); err == nil && k > 0 {
		scale = k
	}
	for _, tc := range []struct{ rows, cols, free, n int }{
		{2, 2, 12, 1}, {2, 3, 17, 1}, {3, 3, 16, 40}, {3, 4, 16, 40}, {4, 4, 16, 40}, {5, 5, 15, 40}, {5, 5, 18, 10},
	} {
		t.Run(fmt.Sprintf("%dx%d-free%d", tc.rows, tc.cols, tc.free), func(t *testing.T) {
			agreeOnRandomPositions(t, tc.rows, tc.cols, tc.free, tc.n*scale)
		})
	}
}

func agreeOnRandomPositions(t *testing.T, rows, cols, free, n int) {
	tc := struct{ rows, cols, free, n int }{rows, cols, free, n}
	{
		s, a := bothSolvers(t, tc.rows, tc.cols)
		x := uint64(tc.rows*100 + tc.cols*10 + tc.free)
		for i := 0; i < tc.n; i++ {
			drawn := randomPosition(s.Edges(), tc.free, &x)
			s.Focus(drawn)
			if got, want := a.Value(drawn), s.Value(drawn); got != want {
				t.Fatalf("%dx%d position %x: alpha-beta %d, brute force %d", tc.rows, tc.cols, drawn, got, want)
			}
			// Every move's value, through positions the rules skip.
			for m := a.all &^ drawn; m != 0; m &= m - 1 {
				e := bits.TrailingZeros64(m)
				after := drawn | 1<<uint(e)
				want := s.Move(drawn, e)
				got := -a.Value(after)
				if k := a.closes(drawn, e); k > 0 {
					got = k + a.Value(after)
				}
				if got != want {
					t.Fatalf("%dx%d position %x, edge %d: alpha-beta %d, brute force %d", tc.rows, tc.cols, drawn, e, got, want)
				}
			}
		}
		s.Forget()
	}
}

// TestAlphaBetaSmallBoards solves whole small boards: 2x2 and 3x3 must
// give the brute-force solver's values, pinned in the tests above.
func TestAlphaBetaSmallBoards(t *testing.T) {
	for _, tc := range []struct{ rows, cols, want int }{{1, 1, -1}, {2, 2, 2}, {3, 3, -3}} {
		a, err := NewAlphaBeta(tc.rows, tc.cols, 16)
		if err != nil {
			t.Fatal(err)
		}
		if v := a.Value(0); v != tc.want {
			t.Errorf("%dx%d: value %d, want %d", tc.rows, tc.cols, v, tc.want)
		}
		t.Logf("%dx%d: value %d, %d positions searched", tc.rows, tc.cols, a.Value(0), a.Nodes)
	}
}

// TestCanonicalSymmetric checks that the eight images of a position have
// one canonical key on a square board, and four on a rectangle.
func TestCanonicalSymmetric(t *testing.T) {
	for _, tc := range []struct{ rows, cols, syms int }{{4, 4, 8}, {3, 5, 4}} {
		a, err := NewAlphaBeta(tc.rows, tc.cols, 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.syms) != tc.syms {
			t.Fatalf("%dx%d: %d symmetries, want %d", tc.rows, tc.cols, len(a.syms), tc.syms)
		}
		x := uint64(99)
		for i := 0; i < 50; i++ {
			drawn := randomPosition(a.edges, a.edges/2, &x)
			key := a.canonical(drawn)
			for s := range a.syms {
				var img uint64
				for k := 0; k < 8; k++ {
					img |= a.syms[s][k][drawn>>(8*k)&0xff]
				}
				if bits.OnesCount64(img) != bits.OnesCount64(drawn) {
					t.Fatalf("symmetry %d maps %x to %x: not a permutation", s, drawn, img)
				}
				if a.canonical(img) != key {
					t.Fatalf("%dx%d: %x and its image %x have keys %x and %x", tc.rows, tc.cols, drawn, img, key, a.canonical(img))
				}
			}
		}
	}
}

// TestLoonyValueAgreesWithBruteForce checks the alpha-beta solver's value of
// simple loony endgames (every box left has two sides drawn) against the
// brute-force solver. The positions are made by drawing random edges that
// leave every box at most two sides until no such edge is left, keeping
// those where no box has fewer than two: mixes of chains and loops.
func TestLoonyValueAgreesWithBruteForce(t *testing.T) {
	for _, tc := range []struct{ rows, cols, want int }{{2, 2, 20}, {2, 3, 40}, {3, 3, 150}, {3, 4, 150}} {
		s, a := bothSolvers(t, tc.rows, tc.cols)
		x := uint64(tc.rows*10 + tc.cols)
		found, loops, tries := 0, 0, 0
		for found < tc.want {
			if tries++; tries > 1_000_000 {
				t.Fatalf("%dx%d: only %d simple loony positions in %d tries", tc.rows, tc.cols, found, tries)
			}
			drawn := loonyPosition(a, &x)
			simple := true
			for _, m := range a.boxes {
				if bits.OnesCount64(drawn&m) != 2 {
					simple = false
				}
			}
			if !simple {
				continue
			}
			found++
			key := a.loonyKey(drawn)
			for _, c := range key {
				if c&loopFlag != 0 {
					loops++
				}
			}
			s.Focus(drawn)
			if got, want := a.loonyValue(drawn), s.Value(drawn); got != want {
				t.Fatalf("%dx%d position %x (components %v): loony value %d, brute force %d", tc.rows, tc.cols, drawn, key, got, want)
			}
			s.Forget()
		}
		t.Logf("%dx%d: %d positions, %d loops among their components", tc.rows, tc.cols, found, loops)
		if tc.rows >= 3 && loops == 0 {
			t.Errorf("%dx%d: no position with a loop was checked", tc.rows, tc.cols)
		}
	}
}

// loonyPosition draws random edges that leave every box at most two sides
// drawn until none is left.
func loonyPosition(a *AlphaBeta, x *uint64) uint64 {
	var drawn uint64
	for {
		var ok []int
		for m := a.all &^ drawn; m != 0; m &= m - 1 {
			e := bits.TrailingZeros64(m)
			if a.closes(drawn, e) == 0 && !a.makesThird(drawn, e) {
				ok = append(ok, e)
			}
		}
		if len(ok) == 0 {
			return drawn
		}
		*x ^= *x << 13
		*x ^= *x >> 7
		*x ^= *x << 17
		drawn |= 1 << uint(ok[*x%uint64(len(ok))])
	}
}

// makesThird reports whether drawing e gives a box its third side.
func (a *AlphaBeta) makesThird(drawn uint64, e int) bool {
	for _, b := range a.across[e] {
		if b >= 0 && a.sides(drawn, b) == 2 {
			return true
		}
	}
	return false
}

// bothSolvers returns the brute-force and the alpha-beta solver of a board.
func bothSolvers(t *testing.T, rows, cols int) (*Solver, *AlphaBeta) {
	t.Helper()
	s, err := New(rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewAlphaBeta(rows, cols, 16)
	if err != nil {
		t.Fatal(err)
	}
	return s, a
}
