// Command dots-and-boxes is a Dots and Boxes bot in Go: take a box if it can, else draw
// an edge that gives no box away, else any edge. See README.md to build it.
package main

// Observation holds the fields of the game's observation this bot reads.
type Observation struct {
	Rows int      `json:"rows"`
	Cols int      `json:"cols"`
	H    [][]bool `json:"h"` // rows+1 rows of cols edges
	V    [][]bool `json:"v"` // rows rows of cols+1 edges
	Fuel Fuel     `json:"fuel"`
}

// Action names one edge.
type Action struct {
	Orient string `json:"orient"`
	R      int    `json:"r"`
	C      int    `json:"c"`
}

func main() {
	// Both seats are asked every turn; only the mover's answer counts, but
	// answering the same way either way costs little.
	Run(choose)
}

// choose scores every undrawn edge, take > safe > any, and returns the best.
func choose(o Observation) Action {
	best, bestScore := Action{}, -1
	for _, orient := range []string{"H", "V"} {
		lines := o.H
		if orient == "V" {
			lines = o.V
		}
		for r, row := range lines {
			for c, drawn := range row {
				if drawn {
					continue
				}
				score := 2 // safe
				switch o.worst(orient, r, c) {
				case 3:
					score = 3 // closes a box
				case 2:
					score = 1 // hands one over
				}
				if score > bestScore {
					best, bestScore = Action{Orient: orient, R: r, C: c}, score
				}
			}
		}
	}
	return best
}

// drawn reports whether an edge is drawn; edges off the board count as drawn.
func (o Observation) drawn(orient string, r, c int) bool {
	lines := o.H
	if orient == "V" {
		lines = o.V
	}
	if r < 0 || r >= len(lines) || c < 0 || c >= len(lines[r]) {
		return true
	}
	return lines[r][c]
}

// sides counts the drawn sides of box (r, c).
func (o Observation) sides(r, c int) int {
	n := 0
	for _, d := range []bool{o.drawn("H", r, c), o.drawn("H", r+1, c), o.drawn("V", r, c), o.drawn("V", r, c+1)} {
		if d {
			n++
		}
	}
	return n
}

// worst returns the most sides any box beside the edge already has: 3 means
// drawing it closes a box, 2 means it hands the opponent one.
func (o Observation) worst(orient string, r, c int) int {
	a, b := [2]int{r - 1, c}, [2]int{r, c} // the boxes above and below
	if orient == "V" {
		a = [2]int{r, c - 1} // left and right
	}
	most := 0
	for _, bx := range [][2]int{a, b} {
		if bx[0] >= 0 && bx[0] < o.Rows && bx[1] >= 0 && bx[1] < o.Cols {
			most = max(most, o.sides(bx[0], bx[1]))
		}
	}
	return most
}
