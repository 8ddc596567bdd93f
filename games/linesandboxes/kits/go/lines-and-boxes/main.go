// Command lines-and-boxes is a Lines and Boxes bot in Go: it draws the line
// that closes the most boxes, else a safe unit edge, else the line that hands
// the opponent the fewest boxes. See README.md to build it.
//
// It reads the observation with the SDK's JSON: the observation lists every move
// so far, which this bot does not need, and skipping it is cheaper in fuel
// than decoding it with encoding/json.
package main

import (
	"strconv"
)

// board is what this bot reads of an observation. Its buffers are kept from
// turn to turn, so that a turn allocates nothing.
type board struct {
	rows, cols int
	h          []int // h[r*cols+c]: 1 when the edge right of dot (r, c) is drawn
	v          []int // v[r*(cols+1)+c]: 1 when the edge below dot (r, c) is drawn
	sides      []int // sides[r*cols+c]: the drawn sides of box (r, c)
}

func (b *board) read(obs JSON) {
	b.h, b.v = b.h[:0], b.v[:0]
	for name, value := range obs.Fields() {
		switch name {
		case "rows":
			b.rows = value.Int()
		case "cols":
			b.cols = value.Int()
		case "h":
			b.h = value.Ints(b.h)
		case "v":
			b.v = value.Ints(b.v)
		}
	}
}

func main() {
	var b board
	Run(func(obs JSON, answer []byte) []byte {
		b.read(obs)
		best, ok := b.best()
		if !ok { // no line left: the game is over and will not ask
			return append(answer, `{"from":"","to":""}`...)
		}
		// The action: a line between two dots in the contest's notation ("A3").
		answer = appendDot(append(answer, `{"from":"`...), best.r0, best.c0)
		answer = appendDot(append(answer, `","to":"`...), best.r1, best.c1)
		return append(answer, `"}`...)
	})
}

// line is a candidate move: dots (r0, c0) to (r1, c1) and what it does.
type line struct {
	r0, c0, r1, c1 int
	closed, handed int // boxes it closes, boxes it leaves with three sides
}

// better orders lines: most boxes won now less boxes handed over, then the
// shorter line (it keeps the safe edges for later).
func (l line) better(than line) bool {
	if a, b := l.closed-l.handed, than.closed-than.handed; a != b {
		return a > b
	}
	return l.r1-l.r0+l.c1-l.c0 < than.r1-than.r0+than.c1-than.c0
}

// best finds the best line to draw, or false when every edge is drawn.
func (o *board) best() (best line, ok bool) {
	// A straight line gives every box along it exactly one more side, so a
	// line's effect is the sum of its unit edges' effects.
	o.sides = o.sides[:0]
	for r := range o.rows {
		for c := range o.cols {
			n := 0
			for _, d := range [4]bool{o.hDrawn(r, c), o.hDrawn(r+1, c), o.vDrawn(r, c), o.vDrawn(r, c+1)} {
				if d {
					n++
				}
			}
			o.sides = append(o.sides, n)
		}
	}
	consider := func(l line) {
		if !ok || l.better(best) {
			best, ok = l, true
		}
	}
	for r := 0; r <= o.rows; r++ { // horizontal lines on dot row r
		for c0 := 0; c0 < o.cols; c0++ {
			l := line{r0: r, c0: c0, r1: r, c1: c0}
			for c := c0; c < o.cols && !o.hDrawn(r, c); c++ {
				o.effect(r-1, c, &l)
				o.effect(r, c, &l)
				l.c1 = c + 1
				consider(l)
			}
		}
	}
	for c := 0; c <= o.cols; c++ { // vertical lines on dot column c
		for r0 := 0; r0 < o.rows; r0++ {
			l := line{r0: r0, c0: c, r1: r0, c1: c}
			for r := r0; r < o.rows && !o.vDrawn(r, c); r++ {
				o.effect(r, c-1, &l)
				o.effect(r, c, &l)
				l.r1 = r + 1
				consider(l)
			}
		}
	}
	return best, ok
}

// effect counts what box (r, c) getting one more side from l does.
func (o *board) effect(r, c int, l *line) {
	if r < 0 || r >= o.rows || c < 0 || c >= o.cols {
		return
	}
	switch o.sides[r*o.cols+c] {
	case 3:
		l.closed++
	case 2:
		l.handed++
	}
}

// hDrawn and vDrawn report whether a unit edge is drawn; edges off the board
// count as drawn.
func (b *board) hDrawn(r, c int) bool { return drawn(b.h, r, c, b.rows+1, b.cols) }
func (b *board) vDrawn(r, c int) bool { return drawn(b.v, r, c, b.rows, b.cols+1) }

func drawn(edges []int, r, c, rows, cols int) bool {
	i := r*cols + c
	return r < 0 || r >= rows || c < 0 || c >= cols || i >= len(edges) || edges[i] != 0
}

// appendDot names the dot on row r, column c (0-based): "A1" is the top left.
func appendDot(b []byte, r, c int) []byte {
	return strconv.AppendInt(append(b, byte('A'+c)), int64(r+1), 10)
}
