// Command dots-and-boxes is a Dots and Boxes bot in Go: take a box if it can, else draw
// an edge that gives no box away, else any edge. See README.md to build it.
package main

import "strconv"

// board is what this bot reads of an observation: the board's size and which
// edges are drawn, 1 for drawn. h holds rows+1 rows of cols edges (the
// horizontal edge above box (r, c) is h[r*cols+c]), v rows rows of cols+1
// edges (the vertical edge left of box (r, c) is v[r*(cols+1)+c]). sides
// counts the drawn sides of box (r, c) at sides[r*cols+c].
type board struct {
	rows, cols int
	h, v       []int
	sides      []int
}

func main() {
	// The board's buffers are kept from turn to turn, so that a turn
	// allocates nothing. Both seats are asked every turn; only the
	// mover's answer counts, but answering the same way either way costs
	// little.
	var b board
	Run(func(obs JSON, answer []byte) []byte {
		b.read(obs)
		orient, r, c := b.choose()
		answer = append(answer, `{"orient":"`...)
		answer = append(answer, orient)
		answer = append(answer, `","r":`...)
		answer = strconv.AppendInt(answer, int64(r), 10)
		answer = append(answer, `,"c":`...)
		answer = strconv.AppendInt(answer, int64(c), 10)
		return append(answer, '}')
	})
}

// read takes the fields this bot needs from the observation, going over it
// once.
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
	// Each box's sides are counted once, not once for every edge beside it.
	b.sides = b.sides[:0]
	for r := range b.rows {
		for c := range b.cols {
			n := 0
			for _, d := range [4]bool{b.drawn('H', r, c), b.drawn('H', r+1, c), b.drawn('V', r, c), b.drawn('V', r, c+1)} {
				if d {
					n++
				}
			}
			b.sides = append(b.sides, n)
		}
	}
}

// choose scores every undrawn edge, take > safe > any, and returns the best.
func (b *board) choose() (orient byte, row, col int) {
	orient, bestScore := 'H', -1
	for _, o := range [2]byte{'H', 'V'} {
		width, height := b.size(o)
		for r := range height {
			for c := range width {
				if b.drawn(o, r, c) {
					continue
				}
				score := 2 // safe
				switch b.worst(o, r, c) {
				case 3:
					score = 3 // closes a box
				case 2:
					score = 1 // hands one over
				}
				if score > bestScore {
					orient, row, col, bestScore = o, r, c, score
				}
			}
		}
	}
	return orient, row, col
}

// size is how many edges a row of orient has, and how many rows there are.
func (b *board) size(orient byte) (width, height int) {
	if orient == 'V' {
		return b.cols + 1, b.rows
	}
	return b.cols, b.rows + 1
}

// drawn reports whether an edge is drawn; edges off the board count as drawn.
func (b *board) drawn(orient byte, r, c int) bool {
	lines := b.h
	if orient == 'V' {
		lines = b.v
	}
	width, height := b.size(orient)
	i := r*width + c
	if r < 0 || r >= height || c < 0 || c >= width || i >= len(lines) {
		return true
	}
	return lines[i] != 0
}

// worst returns the most sides any box beside the edge already has: 3 means
// drawing it closes a box, 2 means it hands the opponent one.
func (b *board) worst(orient byte, r, c int) int {
	a, d := [2]int{r - 1, c}, [2]int{r, c} // the boxes above and below
	if orient == 'V' {
		a = [2]int{r, c - 1} // left and right
	}
	most := 0
	for _, bx := range [2][2]int{a, d} {
		if bx[0] >= 0 && bx[0] < b.rows && bx[1] >= 0 && bx[1] < b.cols {
			most = max(most, b.sides[bx[0]*b.cols+bx[1]])
		}
	}
	return most
}
