// Package exact solves Dots and Boxes positions by brute force: plain
// minimax over every undrawn edge, memoised on the drawn edges, with no
// theory at all. It is slow on purpose, and shares no code with the house
// bots (games/dotsandboxes), so it can judge them: the bot's shortcuts
// (captures taken at once, decline moves, chain values) are exactly what it
// does not assume.
//
// Edges are numbered as the game's observation lists them, on a board of any
// size up to 64 edges: every horizontal edge row by row, then every vertical
// edge row by row.
package exact

import (
	"fmt"
	"math/bits"
)

// Solver holds a board's geometry and the values found so far.
type Solver struct {
	rows, cols int
	edges      int
	// sides[e] are the masks of the (one or two) boxes edge e borders.
	sides [][]uint64
	dense []int8 // memo by drawn mask, for boards of at most denseEdges edges
	memo  map[uint64]int8
	// On a larger board, Focus makes the memo of the positions reached from
	// one position a dense table over its free edges: focusBase are its
	// drawn edges and compress[i][v] the table index bits of the free edges
	// in byte i of a mask.
	focusBase uint64
	focus     []int8
	compress  [8][256]uint32
}

const denseEdges = 26

const unknown = -128

// New returns a solver for a board of rows x cols boxes.
func New(rows, cols int) (*Solver, error) {
	edges := (rows+1)*cols + rows*(cols+1)
	if rows < 1 || cols < 1 || edges > 64 {
		return nil, fmt.Errorf("exact: a %dx%d board does not fit 64 edges", rows, cols)
	}
	s := &Solver{rows: rows, cols: cols, edges: edges, sides: make([][]uint64, edges)}
	h := func(r, c int) int { return r*cols + c }
	v := func(r, c int) int { return (rows+1)*cols + r*(cols+1) + c }
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			box := uint64(1)<<h(r, c) | uint64(1)<<h(r+1, c) | uint64(1)<<v(r, c) | uint64(1)<<v(r, c+1)
			for m := box; m != 0; m &= m - 1 {
				e := bits.TrailingZeros64(m)
				s.sides[e] = append(s.sides[e], box)
			}
		}
	}
	if edges <= denseEdges {
		s.dense = make([]int8, 1<<edges)
		for i := range s.dense {
			s.dense[i] = unknown
		}
	} else {
		s.memo = map[uint64]int8{}
	}
	return s, nil
}

// Edges is the number of edges of the board.
func (s *Solver) Edges() int { return s.edges }

// Value returns the net boxes the player to move will take from the
// position with these edges drawn on, under best play by both.
func (s *Solver) Value(drawn uint64) int {
	all := uint64(1)<<s.edges - 1
	if s.edges == 64 {
		all = ^uint64(0)
	}
	if drawn == all {
		return 0
	}
	slot := s.slot(drawn)
	if slot != nil {
		if v := *slot; v != unknown {
			return int(v)
		}
	} else if v, ok := s.memo[drawn]; ok {
		return int(v)
	}
	best := unknown
	for free := all &^ drawn; free != 0; free &= free - 1 {
		e := bits.TrailingZeros64(free)
		if v := s.Move(drawn, e); v > best {
			best = v
		}
	}
	if slot != nil {
		*slot = int8(best)
	} else {
		s.memo[drawn] = int8(best)
	}
	return best
}

// slot is the dense memo entry of a position, or nil when it has none.
func (s *Solver) slot(drawn uint64) *int8 {
	if s.dense != nil {
		return &s.dense[drawn]
	}
	if s.focus == nil || drawn&s.focusBase != s.focusBase {
		return nil
	}
	var i uint32
	for k := 0; k < 8; k++ {
		i |= s.compress[k][drawn>>(8*k)&0xff]
	}
	return &s.focus[i]
}

// Focus prepares the solver for positions reached from drawn: when it has
// at most denseEdges free edges, their memo becomes a dense table over those
// edges, which is many times faster than the map. It also drops what was
// memoised before, as Forget does.
func (s *Solver) Focus(drawn uint64) {
	s.Forget()
	if s.dense != nil {
		return
	}
	all := uint64(1)<<s.edges - 1
	if s.edges == 64 {
		all = ^uint64(0)
	}
	free := all &^ drawn
	n := bits.OnesCount64(free)
	if n > denseEdges {
		return
	}
	s.focusBase = drawn
	s.compress = [8][256]uint32{}
	idx := 0
	for m := free; m != 0; m &= m - 1 {
		e := bits.TrailingZeros64(m)
		for v := 0; v < 256; v++ {
			if v&(1<<(e%8)) != 0 {
				s.compress[e/8][v] |= 1 << idx
			}
		}
		idx++
	}
	s.focus = make([]int8, 1<<n)
	for i := range s.focus {
		s.focus[i] = unknown
	}
}

// Move returns the value, to the player to move, of drawing edge e: the
// boxes it closes plus the rest if it closes any (the turn stays), otherwise
// minus the opponent's value.
func (s *Solver) Move(drawn uint64, e int) int {
	after := drawn | 1<<uint(e)
	closed := 0
	for _, box := range s.sides[e] {
		if after&box == box {
			closed++
		}
	}
	if closed > 0 {
		return closed + s.Value(after)
	}
	return -s.Value(after)
}

// Forget drops the memo of a map-backed solver, so that solving many
// unrelated positions does not hold them all.
func (s *Solver) Forget() {
	if s.memo != nil {
		s.memo = map[uint64]int8{}
	}
	s.focus = nil
}
