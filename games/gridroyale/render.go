package gridroyale

import (
	"bufio"
	"fmt"
	"io"
)

// ANSI colours of the seats, and the ore shades from poor to rich.
var (
	seatColor = [...]string{"\x1b[1;31m", "\x1b[1;34m", "\x1b[1;32m", "\x1b[1;35m"}
	oreShade  = [...]string{"\x1b[48;5;234m", "\x1b[48;5;58m", "\x1b[48;5;94m", "\x1b[48;5;136m", "\x1b[48;5;178m"}
	oreGlyph  = [...]byte{' ', '.', ':', '+', '#'}
)

const ansiReset = "\x1b[0m"

// oreLevel buckets a cell's ore for shading: 0 empty .. 4 rich.
func oreLevel(o int) int {
	switch {
	case o == 0:
		return 0
	case o < 300:
		return 1
	case o < 900:
		return 2
	case o < 2000:
		return 3
	}
	return 4
}

// Render draws the board, two characters a cell: an empty base as [n], a
// base with its owner's units on it as @n, a unit as un (n its owner), XX
// where units of several owners stand, ore as shading (or . : + # without
// colour), the cells outside the safe zone dimmed red (or ~), then one line
// per player.
func (s *State) Render(w io.Writer, color bool) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	unitAt := make([]int, s.W*s.W) // owner+1, or -1 for several units
	for i := range s.Units {
		c := s.Units[i].Y*s.W + s.Units[i].X
		if unitAt[c] != 0 && unitAt[c] != s.Units[i].Owner+1 {
			unitAt[c] = -1 // several owners: a spawn beside an enemy on a base
		} else {
			unitAt[c] = s.Units[i].Owner + 1
		}
	}
	baseAt := make([]int, s.W*s.W)
	for seat, c := range s.Bases {
		baseAt[c] = seat + 1
	}
	fmt.Fprintf(bw, "turn %d/%d  safe zone (%d,%d)-(%d,%d)\n", s.TurnNum, s.Set.MaxTurns, s.Zone.X0, s.Zone.Y0, s.Zone.X1, s.Zone.Y1)
	for y := 0; y < s.W; y++ {
		for x := 0; x < s.W; x++ {
			c := y*s.W + x
			inZone := s.Zone.Contains(x, y)
			lvl := oreLevel(s.Ore[c])
			var cell [2]byte
			owner := -1
			switch {
			case unitAt[c] == -1:
				cell = [2]byte{'X', 'X'}
			case unitAt[c] > 0 && baseAt[c] == unitAt[c]:
				owner = unitAt[c] - 1
				cell = [2]byte{'@', byte('0' + owner)}
			case unitAt[c] > 0:
				owner = unitAt[c] - 1
				cell = [2]byte{'u', byte('0' + owner)}
			case baseAt[c] > 0:
				owner = baseAt[c] - 1
				cell = [2]byte{'[', byte('0' + owner)}
			case !inZone && !color:
				cell = [2]byte{'~', '~'}
			default:
				cell = [2]byte{oreGlyph[lvl], oreGlyph[lvl]}
				if color {
					cell = [2]byte{' ', ' '}
				}
			}
			if !color {
				bw.Write(cell[:])
				continue
			}
			bw.WriteString(oreShade[lvl])
			if !inZone {
				bw.WriteString("\x1b[2m\x1b[48;5;52m") // dim red outside the zone
			}
			if owner >= 0 {
				bw.WriteString(seatColor[owner%len(seatColor)])
			}
			bw.Write(cell[:])
			bw.WriteString(ansiReset)
		}
		bw.WriteByte('\n')
	}
	for seat := 0; seat < s.N; seat++ {
		status := ""
		if s.Out[seat] {
			status = "  eliminated"
		}
		name := fmt.Sprintf("player %d", seat)
		if color {
			name = seatColor[seat%len(seatColor)] + name + ansiReset
		}
		cargo := 0
		for i := range s.Units {
			if s.Units[i].Owner == seat {
				cargo += s.Units[i].Cargo
			}
		}
		fmt.Fprintf(bw, "%s  bank %d  units %d  cargo %d%s\n", name, s.Banks[seat], s.UnitCount(seat), cargo, status)
	}
}
