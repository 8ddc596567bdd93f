package dotsandboxes

import (
	"fmt"
	"io"
	"strings"
)

// ANSI colours for seats 0 and 1.
var seatColor = [2]string{"\x1b[1;34m", "\x1b[1;31m"}

const colorReset = "\x1b[0m"

// Render draws the board: dots, drawn edges, and each closed box marked with
// its owner's seat number (coloured when color is true), then the scores.
func (s *State) Render(w io.Writer, color bool) {
	paint := func(seat int, text string) string {
		if !color || seat < 0 {
			return text
		}
		return seatColor[seat] + text + colorReset
	}
	var b strings.Builder
	b.WriteString("    ")
	for c := 0; c < Cols; c++ {
		fmt.Fprintf(&b, "%-4d", c)
	}
	b.WriteString("\n")
	for r := 0; r <= Rows; r++ {
		b.WriteString("   ")
		for c := 0; c < Cols; c++ {
			b.WriteString("•")
			if s.IsDrawn(H(r, c)) {
				b.WriteString("───")
			} else {
				b.WriteString("   ")
			}
		}
		b.WriteString("•\n")
		if r == Rows {
			break
		}
		fmt.Fprintf(&b, "%2d ", r)
		for c := 0; c <= Cols; c++ {
			if s.IsDrawn(V(r, c)) {
				b.WriteString("│")
			} else {
				b.WriteString(" ")
			}
			if c < Cols {
				if o := s.Owner(r, c); o >= 0 {
					b.WriteString(paint(o, fmt.Sprintf(" %d ", o)))
				} else {
					b.WriteString("   ")
				}
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "boxes: %s %d, %s %d; %d of %d edges drawn",
		paint(0, "seat 0"), s.Score(0), paint(1, "seat 1"), s.Score(1), s.Turn(), NumEdges)
	if !s.Done() {
		fmt.Fprintf(&b, "; seat %d to move", s.ToMove)
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
}
