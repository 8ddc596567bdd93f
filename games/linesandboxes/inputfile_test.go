package linesandboxes

import (
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
)

// The three sample input files of the contest page.
const (
	sample1 = "1 5 5\n1 0 60.00\n2 0 60.00\n"
	sample2 = "1 5 7\n1 0 60.00\n2 0 60.00\n0 A2 A3\n0 A2 B2\n0 B2 B3\n0 A3 B3\n"
	sample3 = "2 8 3\n1 0 58.32\n2 1 43.16\n0 A2 D2\n0 B1 B9\n1 A1 C1\n2 A1 A5\n1 C1 C9\n"
)

func TestSamples(t *testing.T) {
	for _, c := range []struct {
		text               string
		player, rows, cols int
		moves              int
		scores             [2]int64 // as the moves give them
		toMove             int
	}{
		{sample1, 1, 5, 5, 0, [2]int64{0, 0}, 0},
		{sample2, 1, 5, 7, 4, [2]int64{0, 0}, 0},
		// "Player 2 has captured one box on his first move followed by a
		// single box capture by player 1 - it is now player 2's turn again."
		// (The sample's own score line says 0 for player 1.)
		{sample3, 2, 8, 3, 5, [2]int64{1, 1}, 1},
	} {
		f, err := ParseInputFile([]byte(c.text))
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if f.Player != c.player || f.Rows != c.rows || f.Cols != c.cols || len(f.Moves) != c.moves {
			t.Errorf("%q: parsed %+v", c.text, f)
		}
		if got := string(f.Format()); got != c.text {
			t.Errorf("format:\n%s\nwant:\n%s", got, c.text)
		}
		s, err := f.Replay()
		if err != nil {
			t.Fatal(err)
		}
		if s.scores != c.scores || s.ToMove() != c.toMove {
			t.Errorf("%q: scores %v to move %d, want %v and %d", c.text, s.scores, s.ToMove(), c.scores, c.toMove)
		}
		// The platform writes the same file from its own observation.
		again, err := s.Observe(c.player - 1).InputFile(f.Times)
		if err != nil {
			t.Fatal(err)
		}
		again.Scores = f.Scores
		if got := string(again.Format()); got != c.text {
			t.Errorf("from the observation:\n%s\nwant:\n%s", got, c.text)
		}
	}
	f, _ := ParseInputFile([]byte(sample3))
	if f.Times != [2]float64{58.32, 43.16} || f.Scores != [2]int{0, 1} {
		t.Errorf("sample 3 clock lines %v %v", f.Times, f.Scores)
	}
}

func TestBadInputFiles(t *testing.T) {
	for _, text := range []string{
		"",
		"1 5 5\n1 0 60.00\n",
		"3 5 5\n1 0 60.00\n2 0 60.00\n",
		"1 9 5\n1 0 60.00\n2 0 60.00\n",
		"1 5 5\n2 0 60.00\n1 0 60.00\n",
		"1 5 5\n1 0 sixty\n2 0 60.00\n",
		"1 5 5\n1 0 -1\n2 0 60.00\n",
		"1 5 5\n1 0 60.00\n2 0 60.00\n0 B1 A1\n",          // decreasing
		"1 5 5\n1 0 60.00\n2 0 60.00\n0 A1 B2\n",          // diagonal
		"1 5 5\n1 0 60.00\n2 0 60.00\n0 A1 G1\n",          // off the board
		"1 5 5\n1 0 60.00\n2 0 60.00\n3 A1 B1\n",          // no player 3
		"1 5 5\n1 0 60.00\n2 0 60.00\n1 A1 B1\n0 A2 B2\n", // a 0 move late
		"1 5 5\n1 0 60.00\n2 0 60.00\n0 A1 B1 C1\n",
	} {
		if f, err := ParseInputFile([]byte(text)); err == nil {
			t.Errorf("%q parsed: %+v", text, f)
		}
	}
	for _, text := range []string{
		"1 5 5\n1 0 60.00\n2 0 60.00\n2 A1 B1\n",          // player 2 first
		"1 5 5\n1 0 60.00\n2 0 60.00\n1 A1 C1\n2 B1 C1\n", // overlap
	} {
		f, err := ParseInputFile([]byte(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if _, err := f.Replay(); err == nil {
			t.Errorf("%q replayed", text)
		}
	}
}

func FuzzParseInputFile(f *testing.F) {
	for _, s := range []string{sample1, sample2, sample3, "1 3 3\n1 0 0.5\n2 0 1e3\n", "2 3 3\n1 0 60\n2 0 60\n0 A1 A4\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ParseInputFile(data)
		if err != nil {
			return
		}
		// What parses formats to a file that parses to the same moves.
		again, err := ParseInputFile(file.Format())
		if err != nil {
			t.Fatalf("formatted file does not parse: %v\n%s", err, file.Format())
		}
		if len(again.Moves) != len(file.Moves) || again.Player != file.Player {
			t.Fatalf("round trip changed the file")
		}
		for i := range file.Moves {
			if again.Moves[i] != file.Moves[i] {
				t.Fatalf("move %d changed", i)
			}
		}
		file.Replay() // must not panic, legal or not
	})
}

// TestStartingBoardFromInputFile starts a game from the page's second sample:
// a 5x7 board whose four 0 moves surround box A2, which belongs to nobody.
func TestStartingBoardFromInputFile(t *testing.T) {
	file := sample2
	s, err := NewState(1, game.Params{"board": file})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Params()
	if p["rows"] != "5" || p["cols"] != "7" || len(strings.Split(p["board"], ",")) != 4 {
		t.Fatalf("params %v", p)
	}
	for _, bad := range []struct {
		params game.Params
		want   string
	}{
		{game.Params{"board": file, "rows": "6"}, "for 5x7 boxes"},
		{game.Params{"board": "1 3 3\n1 0 60.00\n2 0 60.00\n1 A1 B1\n"}, "takes only 0 moves"},
		{game.Params{"board": "1 3 3\n1 0 60.00\n"}, "at least 3 lines"},
	} {
		if _, err := NewState(1, bad.params); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.params["board"], err, bad.want)
		}
	}
}
