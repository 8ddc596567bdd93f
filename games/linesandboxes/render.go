package linesandboxes

import (
	"fmt"
	"io"
	"strings"
)

// ANSI colours for the two seats and for nobody's boxes.
var ownerColor = map[int]string{0: "\x1b[31m", 1: "\x1b[34m", Nobody: "\x1b[2m"}

const colorReset = "\x1b[0m"

// Render draws the board: dots, drawn lines, and each closed box marked with
// the seat that owns it ('#' for nobody's).
func (s *State) Render(w io.Writer, color bool) {
	g := s.g
	var b strings.Builder
	fmt.Fprintf(&b, "Lines and Boxes %dx%d, turn %d: seat 0 has %d, seat 1 has %d", g.rows, g.cols, s.turn, s.scores[0], s.scores[1])
	if s.Done() {
		b.WriteString(", game over\n")
	} else {
		fmt.Fprintf(&b, ", seat %d to move\n", s.toMove)
	}
	b.WriteString("    A")
	for c := 1; c <= g.cols; c++ {
		fmt.Fprintf(&b, "%4c", 'A'+c)
	}
	b.WriteString("\n")
	for r := 0; r <= g.rows; r++ {
		fmt.Fprintf(&b, "%2d  ", r+1)
		for c := 0; c <= g.cols; c++ {
			b.WriteString("o")
			if c < g.cols {
				b.WriteString(pick(s.drawn.has(g.h(r, c)), "---", "   "))
			}
		}
		b.WriteString("\n")
		if r == g.rows {
			break
		}
		b.WriteString("    ")
		for c := 0; c <= g.cols; c++ {
			b.WriteString(pick(s.drawn.has(g.v(r, c)), "|", " "))
			if c < g.cols {
				b.WriteString(boxLabel(s.Owner(r, c), color))
			}
		}
		b.WriteString("\n")
	}
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		io.WriteString(w, strings.TrimRight(l, " ")+"\n")
	}
}

func boxLabel(owner int, color bool) string {
	label := " " + fmt.Sprint(owner) + " "
	switch owner {
	case Open:
		return "   "
	case Nobody:
		label = " # "
	}
	if color {
		return ownerColor[owner] + label + colorReset
	}
	return label
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
