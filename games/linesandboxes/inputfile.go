package linesandboxes

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// InputFile is the contest's input file: what a 2006 entry reads each turn.
type InputFile struct {
	Player     int        // 1 or 2: the entry's player number
	Rows, Cols int        // in boxes, rows first
	Scores     [2]int     // of players 1 and 2
	Times      [2]float64 // seconds of CPU left to players 1 and 2
	Moves      []FileMove // the 0 moves first, then the players' in order
}

// FileMove is one move line: Player 0 for a line of the starting board, else 1 or 2.
type FileMove struct {
	Player int
	Seg    Segment
}

// Format writes the file exactly as the contest page shows it: times with
// two decimals, each move's vertices in increasing order.
func (f *InputFile) Format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d %d %d\n", f.Player, f.Rows, f.Cols)
	for i := 0; i < 2; i++ {
		t := f.Times[i]
		if t < 0 {
			t = 0
		}
		fmt.Fprintf(&b, "%d %d %.2f\n", i+1, f.Scores[i], t)
	}
	for _, m := range f.Moves {
		fmt.Fprintf(&b, "%d %v %v\n", m.Player, m.Seg.From, m.Seg.To)
	}
	return b.Bytes()
}

// ParseInputFile reads the contest's input file. It checks the format and
// that every vertex is on the board and in increasing order; whether the
// moves are legal in sequence is for Replay.
func ParseInputFile(data []byte) (*InputFile, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	var lines [][]string
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 0 {
			lines = append(lines, fields)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("input file: %w", err)
	}
	if len(lines) < 3 {
		return nil, fmt.Errorf("input file: want at least 3 lines, got %d", len(lines))
	}
	f := &InputFile{}
	head, err := ints(lines[0], 3)
	if err != nil {
		return nil, fmt.Errorf("input file line 1: %w", err)
	}
	f.Player, f.Rows, f.Cols = head[0], head[1], head[2]
	if f.Player != 1 && f.Player != 2 {
		return nil, fmt.Errorf("input file line 1: player %d, want 1 or 2", f.Player)
	}
	g, err := geomFor(f.Rows, f.Cols)
	if err != nil {
		return nil, fmt.Errorf("input file line 1: %w", err)
	}
	for i := 0; i < 2; i++ {
		l := lines[1+i]
		if len(l) != 3 {
			return nil, fmt.Errorf("input file line %d: want player, score and time", i+2)
		}
		nums, err := ints(l[:2], 2)
		if err != nil {
			return nil, fmt.Errorf("input file line %d: %w", i+2, err)
		}
		if nums[0] != i+1 || nums[1] < 0 {
			return nil, fmt.Errorf("input file line %d: want \"%d SCORE TIME\"", i+2, i+1)
		}
		t, err := strconv.ParseFloat(l[2], 64)
		if err != nil || t < 0 || t != t {
			return nil, fmt.Errorf("input file line %d: time %q is not a non-negative number", i+2, l[2])
		}
		f.Scores[i], f.Times[i] = nums[1], t
	}
	for n, l := range lines[3:] {
		m, err := parseFileMove(g, l)
		if err != nil {
			return nil, fmt.Errorf("input file move %d: %w", n+1, err)
		}
		if m.Player == 0 && len(f.Moves) > 0 && f.Moves[len(f.Moves)-1].Player != 0 {
			return nil, fmt.Errorf("input file move %d: a 0 move after the players' moves", n+1)
		}
		f.Moves = append(f.Moves, m)
	}
	return f, nil
}

func parseFileMove(g *geom, l []string) (FileMove, error) {
	if len(l) != 3 {
		return FileMove{}, fmt.Errorf("want PLAYER VERTEX VERTEX, got %q", strings.Join(l, " "))
	}
	p, err := strconv.Atoi(l[0])
	if err != nil || p < 0 || p > 2 {
		return FileMove{}, fmt.Errorf("player %q: want 0, 1 or 2", l[0])
	}
	seg, err := ParseMoveLine(l[1], l[2])
	if err != nil {
		return FileMove{}, err
	}
	if _, err := g.segmentEdges(seg, nil); err != nil {
		return FileMove{}, err
	}
	return FileMove{Player: p, Seg: seg}, nil
}

// ParseMoveLine reads the two vertices of a move as the contest writes it:
// the second "greater" than the first (right of it or below it).
func ParseMoveLine(first, second string) (Segment, error) {
	a, err := ParseVertex(first)
	if err != nil {
		return Segment{}, err
	}
	b, err := ParseVertex(second)
	if err != nil {
		return Segment{}, err
	}
	if NewSegment(a, b) != (Segment{a, b}) {
		return Segment{}, fmt.Errorf("%v %v: the second vertex must be right of or below the first", a, b)
	}
	return Segment{a, b}, nil
}

func ints(fields []string, n int) ([]int, error) {
	if len(fields) != n {
		return nil, fmt.Errorf("want %d numbers, got %q", n, strings.Join(fields, " "))
	}
	out := make([]int, n)
	for i, s := range fields {
		v, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		out[i] = v
	}
	return out, nil
}

// Replay plays the file's moves on a fresh board: the 0 moves as its starting
// lines, then the players' moves, which must alternate from player 1. The
// file's score and time lines are not checked against the moves (the page's
// own third sample gives player 1 a score of 0 after a capture).
func (f *InputFile) Replay() (*State, error) {
	var board []string
	for _, m := range f.Moves {
		if m.Player == 0 {
			board = append(board, m.Seg.String())
		}
	}
	s, err := NewState(0, map[string]string{
		"rows": strconv.Itoa(f.Rows), "cols": strconv.Itoa(f.Cols), "board": strings.Join(board, ","),
	})
	if err != nil {
		return nil, fmt.Errorf("input file: %w", err)
	}
	for i, m := range f.Moves[len(board):] {
		if m.Player != s.toMove+1 {
			return nil, fmt.Errorf("input file: player move %d is by player %d, want %d", i+1, m.Player, s.toMove+1)
		}
		if err := s.Play(m.Seg); err != nil {
			return nil, fmt.Errorf("input file: player move %d: %w", i+1, err)
		}
	}
	return s, nil
}

// InputFile builds the contest's input file for the observation's seat.
// times are the seconds left to seats 0 and 1.
func (o Observation) InputFile(times [2]float64) (*InputFile, error) {
	f := &InputFile{Player: o.You + 1, Rows: o.Rows, Cols: o.Cols, Times: times}
	if len(o.Scores) != 2 || (o.You != 0 && o.You != 1) {
		return nil, fmt.Errorf("observation: want 2 scores and a seat 0 or 1")
	}
	f.Scores = [2]int{int(o.Scores[0]), int(o.Scores[1])}
	for i, m := range o.Moves {
		from, err := ParseVertex(m.From)
		if err != nil {
			return nil, fmt.Errorf("observation move %d: %w", i+1, err)
		}
		to, err := ParseVertex(m.To)
		if err != nil {
			return nil, fmt.Errorf("observation move %d: %w", i+1, err)
		}
		f.Moves = append(f.Moves, FileMove{Player: m.Player + 1, Seg: NewSegment(from, to)})
	}
	return f, nil
}
