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
	if e, v, _ := s.root(&b, s.moves(&b), NumEdges); v == want || worth(e) == want {
		t.Errorf("with small gifts only: value %d, move %v worth %d; the position no longer tells the rules apart", v, e, worth(e))
	}
	e := newSearcher(levelHard).bestMove(&b)
	if got := worth(e); got != want {
		t.Errorf("the hard level plays %v, worth %d; best is %d", e, got, want)
	}
}

// TestClassifyCountsSides checks the bitwise classify against counting each
// box's drawn sides one by one, on random positions of every density.
func TestClassifyCountsSides(t *testing.T) {
	src := rng.New(5)
	for i := 0; i < 100_000; i++ {
		d := src.Uint64()
		for k := i % 4; k > 0; k-- {
			d &= src.Uint64() // sparser positions too
		}
		b := Board{Drawn: d & allEdges}
		var three, two uint64
		for box := range boxEdges {
			switch bits.OnesCount64(b.Drawn & boxEdges[box]) {
			case 3:
				three |= boxEdges[box]
			case 2:
				two |= boxEdges[box]
			}
		}
		free := b.Undrawn()
		closing, safe, unsafe := b.classify()
		if closing != free&three || unsafe != free&two&^three || safe != free&^(three|two) {
			t.Fatalf("%x: classify says closing %x safe %x unsafe %x", b.Drawn, closing, safe, unsafe)
		}
	}
}

// TestLoonyValueIsExactOnSimpleEndgames: the search ends at a position with
// no safe edge and no junction (simpleLoony) with the loony table's value,
// at any depth, so that value must be the exact one. It is checked against
// the endgame solver, which plays every edge, on random simple endgames,
// some of them after a few openings and captures.
func TestLoonyValueIsExactOnSimpleEndgames(t *testing.T) {
	src := rng.New(11)
	pick := func(m uint64) Edge { return nthBit(m, int(src.Uint64()%uint64(bits.OnesCount64(m)))) }
	checked, loops, long := 0, 0, 0
	for trial := 0; trial < 20_000 && checked < 2_000; trial++ {
		var b Board
		for {
			closing, safe, _ := b.classify()
			if closing == 0 && safe == 0 {
				break
			}
			if closing == 0 {
				closing = safe
			}
			b.Play(pick(closing))
		}
		for k := src.Uint64() % 4; k > 0 && !b.Over(); k-- {
			b.Play(pick(b.Undrawn()))
			b.takeAll()
		}
		if closing, _, _ := b.classify(); b.Over() || closing != 0 || !b.simpleLoony() {
			continue
		}
		want, ok := newEndgame().value(&b)
		if !ok {
			continue
		}
		sh, n := shapeOf(&b)
		if got := (&loonyTable{memo: map[shape]int8{}}).value(sh, n); got != want {
			t.Fatalf("%x: loony value %d, exact %d (shape %v)", b.Drawn, got, want, sh[:n])
		}
		checked++
		for _, c := range sh[:n] {
			if c&loopBit != 0 {
				loops++
			} else if c >= 3 {
				long++
			}
		}
	}
	if checked < 1_000 || loops == 0 || long == 0 {
		t.Fatalf("checked %d simple endgames (%d loops, %d long chains): too few to mean much", checked, loops, long)
	}
}

// TestHandedByPlaysOut: handedBy's walk must give the boxes that drawing
// the edge and taking every capture after it would claim.
func TestHandedByPlaysOut(t *testing.T) {
	src := rng.New(3)
	checked := 0
	for i := 0; i < 20_000; i++ {
		var b Board
		for n := src.Uint64() % NumEdges; n > 0; n-- {
			b.Play(nthBit(b.Undrawn(), int(src.Uint64()%uint64(bits.OnesCount64(b.Undrawn())))))
		}
		b.takeAll()
		for m := b.Undrawn(); m != 0; m &= m - 1 {
			e := Edge(bits.TrailingZeros64(m))
			after := b
			after.Play(e)
			after.takeAll()
			want := (after.Owned[0] | after.Owned[1]) &^ (b.Owned[0] | b.Owned[1])
			if got := b.handedBy(e); got != want {
				t.Fatalf("%x edge %d: handedBy %x, played out %x", b.Drawn, e, got, want)
			}
			checked++
		}
	}
	if checked < 100_000 {
		t.Fatalf("only %d edges checked", checked)
	}
}

// TestCornerEdgesAreTwins: the two border edges of a corner box make the
// same position up to a renaming of edges, so they have the same value.
func TestCornerEdgesAreTwins(t *testing.T) {
	src := rng.New(21)
	for _, pair := range cornerEdges {
		box := edgeBoxes[pair[0]]
		if box != edgeBoxes[pair[1]] || (box[0] >= 0) == (box[1] >= 0) {
			t.Fatalf("%v are not the border edges of one corner box", pair)
		}
	}
	checked := 0
	for i := 0; i < 400 && checked < 40; i++ {
		var b Board
		for b.Undrawn() != 0 && bits.OnesCount64(b.Undrawn()) > 14 {
			b.Play(nthBit(b.Undrawn(), int(src.Uint64()%uint64(bits.OnesCount64(b.Undrawn())))))
		}
		for _, pair := range cornerEdges {
			if b.IsDrawn(pair[0]) || b.IsDrawn(pair[1]) {
				continue
			}
			var v [2]int
			for j, e := range pair {
				after := b
				n := after.Play(e)
				w, ok := newEndgame().value(&after)
				if !ok {
					t.Fatalf("%x: the endgame solver ran out of nodes", after.Drawn)
				}
				if n == 0 {
					w = -w
				}
				v[j] = n + w
			}
			if v[0] != v[1] {
				t.Fatalf("%x: corner edges %v are worth %v", b.Drawn, pair, v)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d pairs checked", checked)
	}
}

// TestNearSearchGivesSmallGifts: the near search (levelHard's nearNodes)
// offers sacrifices of one or two boxes only while safe edges remain, where
// the level otherwise offers any size.
func TestNearSearchGivesSmallGifts(t *testing.T) {
	src := rng.New(8)
	checked := 0
	for i := 0; i < 5_000 && checked < 50; i++ {
		b := randomQuietPosition(src, 20+int(src.Uint64()%25))
		closing, safe, unsafe := b.classify()
		if closing != 0 || safe == 0 {
			continue
		}
		large := false
		for m := unsafe; m != 0; m &= m - 1 {
			if bits.OnesCount32(b.handedBy(Edge(bits.TrailingZeros64(m)))) > 2 {
				large = true
			}
		}
		if !large {
			continue
		}
		lv := levelHard
		lv.tableBits = 4 // no search here: only the move lists
		s := newSearcher(lv)
		gifts := func() (most int) {
			for _, e := range s.appendChoices(nil, &b, safe, unsafe) {
				if safe&(1<<uint(e)) == 0 {
					most = max(most, bits.OnesCount32(b.handedBy(e)))
				}
			}
			return most
		}
		if most := gifts(); most <= 2 {
			t.Fatalf("%x: the hard level offers gifts of at most %d boxes, want larger ones too", b.Drawn, most)
		}
		s.smallGifts = true
		if most := gifts(); most > 2 {
			t.Fatalf("%x: the near search offers a gift of %d boxes with safe edges left", b.Drawn, most)
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("only %d positions with safe edges and a long chain to give", checked)
	}
}

// TestNearSearchLeavesNoValues: what the near search stores assumes small
// gifts, so none of it may go in the main table, where a later exact search
// would take it for exact: neither when it finishes nor when it does not and
// the deepening goes on in its model and table.
func TestNearSearchLeavesNoValues(t *testing.T) {
	for _, tc := range []struct {
		name      string
		nearNodes int
		finished  bool
	}{
		{"finished", 1 << 40, true},
		{"unfinished", 1_000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := rng.New(13)
			lv := levelHard
			lv.nearNodes = tc.nearNodes
			for checked := 0; checked < 1; {
				b := randomQuietPosition(src, lv.exactFree+2)
				if bits.OnesCount64(b.Undrawn()) <= lv.exactFree {
					continue // the exact attempt's, not the near search's
				}
				checked++
				s := newSearcher(lv)
				if e := s.bestMove(&b); e < 0 || b.IsDrawn(e) {
					t.Fatalf("%x: illegal move %v", b.Drawn, e)
				}
				if finished := moveMadeBy(s, bits.OnesCount64(b.Undrawn())) == "near"; finished != tc.finished {
					t.Fatalf("%x: near search finished %v, want %v", b.Drawn, finished, tc.finished)
				}
				if s.nodes < 1000 {
					t.Fatalf("%x: the last search visited %d nodes; the position tests nothing", b.Drawn, s.nodes)
				}
				if s.smallGifts {
					t.Fatalf("%x: small gifts still set after the move", b.Drawn)
				}
				for j, entry := range s.tt {
					if entry != (ttEntry{}) {
						t.Fatalf("%x: main table slot %d holds %+v after the near search", b.Drawn, j, entry)
					}
				}
			}
		})
	}
}

// moveMadeBy names the search that made s's last move, in a position with
// free edges left: "exact" or "near" for an attempt that finished, which
// leaves its budget set, "deepening" otherwise, since the deepening after
// an unfinished attempt restores the move's budget.
func moveMadeBy(s *searcher, free int) string {
	switch {
	case free <= s.lv.exactFree && s.budget == s.lv.exactNodes:
		return "exact"
	case free > s.lv.exactFree && free <= s.lv.nearFree && s.budget == s.lv.nearNodes:
		return "near"
	}
	return "deepening"
}

// randomQuietPosition plays random edges, safe ones while there are any as
// players do, taking whatever they make capturable, until at most free
// edges are left.
func randomQuietPosition(src *rng.Source, free int) Board {
	var b Board
	for bits.OnesCount64(b.Undrawn()) > free {
		_, safe, _ := b.classify()
		if safe == 0 {
			safe = b.Undrawn()
		}
		b.Play(nthBit(safe, int(src.Uint64()%uint64(bits.OnesCount64(safe)))))
		b.takeAll()
	}
	return b
}
