package linesandboxes

import (
	"fmt"
	"strconv"

	"github.com/arenabots/arena/internal/rng"
)

// Board sizes in boxes, from the contest page.
const (
	MinSize = 3
	MaxSize = 8
)

// A Vertex is a dot of the board, 0-based: Col 0 is the contest's letter A,
// Row 0 its number 1.
type Vertex struct{ Col, Row int }

// String writes the vertex in the contest's notation, e.g. "C4".
func (v Vertex) String() string {
	return string(rune('A'+v.Col)) + strconv.Itoa(v.Row+1)
}

// ParseVertex reads the contest's notation: one letter (either case) for the
// column, then a row number from 1. It checks only the notation, not whether
// the dot is on a particular board: that is a rule, and breaking it is illegal
// rather than malformed.
func ParseVertex(s string) (Vertex, error) {
	if len(s) < 2 || len(s) > 4 {
		return Vertex{}, fmt.Errorf("vertex %q: want a letter and a row number, like A3", s)
	}
	letter := s[0]
	switch {
	case letter >= 'A' && letter <= 'Z':
	case letter >= 'a' && letter <= 'z':
		letter -= 'a' - 'A'
	default:
		return Vertex{}, fmt.Errorf("vertex %q: want a column letter first", s)
	}
	digits := s[1:]
	if digits[0] < '1' || digits[0] > '9' {
		return Vertex{}, fmt.Errorf("vertex %q: want a row number from 1", s)
	}
	row := 0
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return Vertex{}, fmt.Errorf("vertex %q: want a row number from 1", s)
		}
		row = row*10 + int(digits[i]-'0')
	}
	return Vertex{Col: int(letter - 'A'), Row: row - 1}, nil
}

// A Segment is a line between two dots. Made by NewSegment it is canonical:
// From is left of or above To, as the contest writes moves.
type Segment struct{ From, To Vertex }

// NewSegment orders two dots the canonical way (smaller first).
func NewSegment(a, b Vertex) Segment {
	if b.Row < a.Row || (b.Row == a.Row && b.Col < a.Col) {
		a, b = b, a
	}
	return Segment{From: a, To: b}
}

// String writes the segment as the compact parameter form "A2-C2".
func (s Segment) String() string { return s.From.String() + "-" + s.To.String() }

// Horizontal reports whether the segment lies on one row of dots.
func (s Segment) Horizontal() bool { return s.From.Row == s.To.Row }

// Length is the number of unit edges the segment covers (for a straight one).
func (s Segment) Length() int { return s.To.Col - s.From.Col + s.To.Row - s.From.Row }

// edgeSet is a set of unit edges, by edge index. 3 words hold the 144 edges of
// the largest board.
type edgeSet [3]uint64

func (e *edgeSet) has(i int) bool { return e[i>>6]&(1<<(i&63)) != 0 }
func (e *edgeSet) add(i int)      { e[i>>6] |= 1 << (i & 63) }

// geom is everything about a board size that does not change during a game.
// Edge indices: the horizontal edge h[r][c] is r*cols+c; the vertical edge
// v[r][c] comes after all horizontal ones, at nh + r*(cols+1) + c. So index
// order is exactly the documented default-move order.
type geom struct {
	rows, cols int
	nh, n      int      // horizontal edges, all edges
	boxEdges   [][4]int // top, bottom, left, right of each box r*cols+c
	edgeBoxes  [][2]int // the boxes on each side of an edge, -1 for none
	lines      []line   // every row and column of dots
	zobrist    []uint64 // a random word per edge, for transposition tables
	valid      edgeSet  // every edge of the board
}

// A line is one row or column of dots, with its unit edges in order.
type line struct {
	horizontal bool
	index      int   // the row (horizontal) or column (vertical) of dots
	edges      []int // edge indices from the left or top
}

var geoms [MaxSize + 1][MaxSize + 1]*geom

func init() {
	for r := MinSize; r <= MaxSize; r++ {
		for c := MinSize; c <= MaxSize; c++ {
			geoms[r][c] = newGeom(r, c)
		}
	}
}

func geomFor(rows, cols int) (*geom, error) {
	if rows < MinSize || rows > MaxSize || cols < MinSize || cols > MaxSize {
		return nil, fmt.Errorf("board %dx%d: rows and cols must be %d to %d", rows, cols, MinSize, MaxSize)
	}
	return geoms[rows][cols], nil
}

func newGeom(rows, cols int) *geom {
	g := &geom{rows: rows, cols: cols, nh: (rows + 1) * cols}
	g.n = g.nh + rows*(cols+1)
	g.edgeBoxes = make([][2]int, g.n)
	for i := range g.edgeBoxes {
		g.edgeBoxes[i] = [2]int{-1, -1}
	}
	link := func(e, box int) {
		if g.edgeBoxes[e][0] < 0 {
			g.edgeBoxes[e][0] = box
		} else {
			g.edgeBoxes[e][1] = box
		}
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			b := r*cols + c
			sides := [4]int{g.h(r, c), g.h(r+1, c), g.v(r, c), g.v(r, c+1)}
			g.boxEdges = append(g.boxEdges, sides)
			for _, e := range sides {
				link(e, b)
			}
		}
	}
	for r := 0; r <= rows; r++ {
		l := line{horizontal: true, index: r}
		for c := 0; c < cols; c++ {
			l.edges = append(l.edges, g.h(r, c))
		}
		g.lines = append(g.lines, l)
	}
	for c := 0; c <= cols; c++ {
		l := line{index: c}
		for r := 0; r < rows; r++ {
			l.edges = append(l.edges, g.v(r, c))
		}
		g.lines = append(g.lines, l)
	}
	// A fixed stream: hashes must not depend on the match.
	src := rng.New(uint64(rows*16 + cols))
	for e := 0; e < g.n; e++ {
		g.valid.add(e)
	}
	g.zobrist = make([]uint64, g.n)
	for i := range g.zobrist {
		g.zobrist[i] = src.Uint64()
	}
	return g
}

func (g *geom) h(r, c int) int { return r*g.cols + c }
func (g *geom) v(r, c int) int { return g.nh + r*(g.cols+1) + c }

// onBoard reports whether a dot exists on this board.
func (g *geom) onBoard(v Vertex) bool {
	return v.Col >= 0 && v.Col <= g.cols && v.Row >= 0 && v.Row <= g.rows
}

// segmentEdges checks that s is a straight line of at least one edge between
// two dots of the board and returns its edges, or says what is wrong.
func (g *geom) segmentEdges(s Segment, dst []int) ([]int, error) {
	switch {
	case !g.onBoard(s.From):
		return nil, fmt.Errorf("%v is not on a %dx%d board", s.From, g.rows, g.cols)
	case !g.onBoard(s.To):
		return nil, fmt.Errorf("%v is not on a %dx%d board", s.To, g.rows, g.cols)
	case s.From == s.To:
		return nil, fmt.Errorf("%v to %v joins a dot to itself", s.From, s.To)
	case s.From.Row == s.To.Row:
		for c := s.From.Col; c < s.To.Col; c++ {
			dst = append(dst, g.h(s.From.Row, c))
		}
	case s.From.Col == s.To.Col:
		for r := s.From.Row; r < s.To.Row; r++ {
			dst = append(dst, g.v(r, s.From.Col))
		}
	default:
		return nil, fmt.Errorf("%v to %v is neither horizontal nor vertical", s.From, s.To)
	}
	return dst, nil
}

// lineOf returns the line of edge e and e's place on it.
func (g *geom) lineOf(e int) (line, at int) {
	if e < g.nh {
		return e / g.cols, e % g.cols
	}
	e -= g.nh
	return g.rows + 1 + e%(g.cols+1), e / (g.cols + 1)
}

// edgeSegment is the one-edge segment of edge e.
func (g *geom) edgeSegment(e int) Segment {
	if e < g.nh {
		r, c := e/g.cols, e%g.cols
		return Segment{Vertex{c, r}, Vertex{c + 1, r}}
	}
	e -= g.nh
	r, c := e/(g.cols+1), e%(g.cols+1)
	return Segment{Vertex{c, r}, Vertex{c, r + 1}}
}

// lineSegment is the segment covering edges a..b-1 of line l.
func (g *geom) lineSegment(l *line, a, b int) Segment {
	if l.horizontal {
		return Segment{Vertex{a, l.index}, Vertex{b, l.index}}
	}
	return Segment{Vertex{l.index, a}, Vertex{l.index, b}}
}
