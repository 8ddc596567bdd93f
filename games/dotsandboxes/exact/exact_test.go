package exact

import (
	"math/bits"
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
