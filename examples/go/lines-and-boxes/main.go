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

// board is what this bot reads of an observation.
type board struct {
	rows, cols int
	h          []int // h[r*cols+c]: 1 when the edge right of dot (r, c) is drawn
	v          []int // v[r*(cols+1)+c]: 1 when the edge below dot (r, c) is drawn
}

func read(obs JSON) board {
	var b board
	for name, value := range obs.Fields() {
		switch name {
		case "rows":
			b.rows = value.Int()
		case "cols":
			b.cols = value.Int()
		case "h":
			b.h = value.Ints(nil)
		case "v":
			b.v = value.Ints(nil)
		}
	}
	return b
}

// Action is a line between two dots in the contest's notation ("A3").
type Action struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func main() { Run(play) }

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

func play(obs JSON) Action {
	o := read(obs)
	// sides[r][c] counts the drawn sides of box (r, c). A straight line gives
	// every box along it exactly one more side, so a line's effect is the sum
	// of its unit edges' effects.
	sides := make([][]int, o.rows)
	for r := range sides {
		sides[r] = make([]int, o.cols)
		for c := range sides[r] {
			for _, d := range []bool{o.hDrawn(r, c), o.hDrawn(r+1, c), o.vDrawn(r, c), o.vDrawn(r, c+1)} {
				if d {
					sides[r][c]++
				}
			}
		}
	}
	effect := func(r, c int, l *line) { // box (r, c) gets one more side from l
		if r < 0 || r >= o.rows || c < 0 || c >= o.cols {
			return
		}
		switch sides[r][c] {
		case 3:
			l.closed++
		case 2:
			l.handed++
		}
	}
	var best *line
	consider := func(l line) {
		if best == nil || l.better(*best) {
			best = &l
		}
	}
	for r := 0; r <= o.rows; r++ { // horizontal lines on dot row r
		for c0 := 0; c0 < o.cols; c0++ {
			l := line{r0: r, c0: c0, r1: r, c1: c0}
			for c := c0; c < o.cols && !o.hDrawn(r, c); c++ {
				effect(r-1, c, &l)
				effect(r, c, &l)
				l.c1 = c + 1
				consider(l)
			}
		}
	}
	for c := 0; c <= o.cols; c++ { // vertical lines on dot column c
		for r0 := 0; r0 < o.rows; r0++ {
			l := line{r0: r0, c0: c, r1: r0, c1: c}
			for r := r0; r < o.rows && !o.vDrawn(r, c); r++ {
				effect(r, c-1, &l)
				effect(r, c, &l)
				l.r1 = r + 1
				consider(l)
			}
		}
	}
	if best == nil {
		return Action{} // no line left: the game is over and will not ask
	}
	return Action{From: dot(best.r0, best.c0), To: dot(best.r1, best.c1)}
}

// hDrawn and vDrawn report whether a unit edge is drawn; edges off the board
// count as drawn.
func (b board) hDrawn(r, c int) bool { return drawn(b.h, r, c, b.rows+1, b.cols) }
func (b board) vDrawn(r, c int) bool { return drawn(b.v, r, c, b.rows, b.cols+1) }

func drawn(edges []int, r, c, rows, cols int) bool {
	i := r*cols + c
	return r < 0 || r >= rows || c < 0 || c >= cols || i >= len(edges) || edges[i] != 0
}

// dot names the dot on row r, column c (0-based): "A1" is the top left.
func dot(r, c int) string { return string(rune('A'+c)) + strconv.Itoa(r+1) }
