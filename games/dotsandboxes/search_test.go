package dotsandboxes

import (
	"math/bits"
	"testing"

	solver "github.com/arenabots/arena/games/dotsandboxes/exact"
	"github.com/arenabots/arena/internal/rng"
)

// record plays one match between house bots and returns every state hash
// along the way: two runs must agree on all of them.
func record(t *testing.T, seed uint64, names [2]string) []uint64 {
	hashes, _ := playHouseMatch(t, seed, names)
	return hashes
}

// TestSearchLegalAndDeterministic plays each level against greedy twice on
// the same seeds: every answer must be legal (record fails otherwise) and the
// two runs identical move for move.
func TestSearchLegalAndDeterministic(t *testing.T) {
	for _, name := range []string{"beginner", "search-easy", "search-medium", "search"} {
		for seed := uint64(1); seed <= 1; seed++ {
			a := record(t, seed, [2]string{name, "greedy"})
			b := record(t, seed, [2]string{"greedy", name})
			a2 := record(t, seed, [2]string{name, "greedy"})
			b2 := record(t, seed, [2]string{"greedy", name})
			if len(a) != NumEdges || len(b) != NumEdges {
				t.Fatalf("%s seed %d: %d and %d turns, want %d", name, seed, len(a), len(b), NumEdges)
			}
			for i := range a {
				if a[i] != a2[i] || b[i] != b2[i] {
					t.Fatalf("%s seed %d: runs differ at turn %d", name, seed, i)
				}
			}
		}
	}
}

// TestCanonicalIsSymmetric checks that the eight images of a position share
// its table key, and that different positions mostly do not.
func TestCanonicalIsSymmetric(t *testing.T) {
	src := rng.New(9)
	keys := map[uint64]bool{}
	for i := 0; i < 500; i++ {
		d := src.Uint64() & allEdges
		k := canonical(d)
		for s := 0; s < 8; s++ {
			tab := &symTab[s]
			var img uint64
			for j := 0; j < 8; j++ {
				img |= tab[j][d>>(8*j)&0xff]
			}
			if bits.OnesCount64(img) != bits.OnesCount64(d) {
				t.Fatalf("symmetry %d changes the edge count of %x", s, d)
			}
			if canonical(img) != k {
				t.Fatalf("symmetry %d of %x has another key", s, d)
			}
		}
		keys[k] = true
	}
	if len(keys) < 490 {
		t.Errorf("500 random positions share %d keys", len(keys))
	}
}

// TestShapeMatchesComponents checks the allocation-free chain analysis and
// its loony values against components and loony (chains.go) on random
// positions with no safe edge and no capture pending.
func TestShapeMatchesComponents(t *testing.T) {
	src := rng.New(11)
	checked := 0
	for game := 0; game < 300; game++ {
		var b Board
		for !b.Over() {
			closing, safe, unsafe := b.classify()
			if closing == 0 && safe == 0 {
				sh, n := shapeOf(&b)
				comps := components(&b)
				if n != len(comps) {
					t.Fatalf("%x: %d components, shape has %d", b.Drawn, len(comps), n)
				}
				want := newLoony().value(comps)
				if got := (&loonyTable{memo: map[shape]int8{}}).value(sh, n); got != want {
					t.Fatalf("%x: loony value %d, shape value %d", b.Drawn, want, got)
				}
				checked++
			}
			m := closing
			if m == 0 {
				m = safe
			}
			if m == 0 {
				m = unsafe
			}
			b.Play(nthBit(m, src.Intn(bits.OnesCount64(m))))
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d positions checked", checked)
	}
}

// TestSearchBeatsChains is a quick guard on strength: 12 seat-balanced
// matches, of which search must win at least 10 (it wins about 95% over
// 200, docs/bots-strength.md).
func TestSearchBeatsChains(t *testing.T) {
	if testing.Short() {
		t.Skip("12 matches of the full search")
	}
	rate := winRate(t, "search", "chains", 12)
	t.Logf("search beats chains in %.0f%% of 12 seat-balanced matches", 100*rate)
	if rate < 10.0/12 {
		t.Errorf("search beats chains in only %.0f%% of 12 matches", 100*rate)
	}
}

// TestSearchGivesWholeChainEarly pins the two rules of the hard level's
// late middle game on a position of a game against a public engine (27
// edges drawn, nine safe edges left, seat 1 to move; the exact value is -5).
// A search that tries only sacrifices of one or two boxes while more than
// four safe edges remain values it -9 and plays a move worth -9, even with
// no node limit: keeping the value needs a bigger gift. The hard level tries
// every sacrifice, and with 33 free edges its search without a depth limit
// (exactNodes) finishes within the budget, so its move keeps the exact value.
func TestSearchGivesWholeChainEarly(t *testing.T) {
	b := Board{Drawn: 0x84b10f3f0d05af, Owned: [2]uint32{0xc, 0}, ToMove: 1}
	ab, err := solver.NewAlphaBeta(Rows, Cols, 20)
	if err != nil {
		t.Fatal(err)
	}
	worth := func(e Edge) int {
		after := b
		if n := after.Play(e); n > 0 {
			return n + ab.Value(after.Drawn)
		}
		return -ab.Value(after.Drawn)
	}
	want := ab.Value(b.Drawn)
	if want != -5 {
		t.Fatalf("exact value %d, want -5", want)
	}
	small := levelHard
	small.allGifts = 4
	s := newSearcher(small)
	s.budget = 1 << 40
	if e, v, _ := s.root(&b, s.moves(&b, true), NumEdges); v == want || worth(e) == want {
		t.Errorf("with small gifts only: value %d, move %v worth %d; the position no longer tells the rules apart", v, e, worth(e))
	}
	e := newSearcher(levelHard).bestMove(&b)
	if got := worth(e); got != want {
		t.Errorf("the hard level plays %v, worth %d; best is %d", e, got, want)
	}
}
