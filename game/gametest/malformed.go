package gametest

import (
	"testing"

	"github.com/arenabots/arena/game"
)

// MalformedRows are the rows of docs/bots.md's table "What is malformed", in
// its order, each with the status its answer gets. A game's test gives an
// answer for every row (Malformed).
var MalformedRows = []struct {
	Row    string
	Status game.Status
}{
	{"not JSON", game.Malformed},
	{"an empty line", game.Malformed},
	{"not an object", game.Malformed},
	{"null instead of the object", game.Malformed},
	{"a required field missing", game.Malformed},
	{"a field name in another letter case", game.Malformed},
	{"null where a value is wanted", game.Malformed},
	{"a value of the wrong type", game.Malformed},
	{"a number that is not an integer", game.Malformed},
	{"an integer too large", game.Malformed},
	{"the same field twice", game.Malformed},
	{"text after the object", game.Malformed},
	{"a value outside its vocabulary", game.Malformed},
	// Not malformed: extra fields, whatever their name or value, and white
	// space around the object.
	{"extra fields are ignored", game.OK},
	{"white space around the object", game.OK},
}

// NoSuchField is the answer, in Malformed's table, for a row the game's
// answer has no field to apply to (no integer field, say).
const NoSuchField = "\x00no such field"

// Malformed checks g's answers to the rows of MalformedRows: answers maps
// every row to seat 0's answer on the first turn of a match of the game's
// fewest players (or NoSuchField), which must get the row's status and an
// applied action. A row left out fails, so a new row reaches every game.
func Malformed(t *testing.T, g game.Game, answers map[string]string) {
	t.Helper()
	known := map[string]bool{}
	for _, row := range MalformedRows {
		known[row.Row] = true
		answer, ok := answers[row.Row]
		if !ok {
			t.Errorf("no answer for the row %q (NoSuchField when it does not apply)", row.Row)
			continue
		}
		if answer == NoSuchField {
			continue
		}
		t.Run(row.Row, func(t *testing.T) {
			st, err := g.New(game.Config{Seed: 1, Players: g.Info().Players[0]})
			if err != nil {
				t.Fatal(err)
			}
			all := make([][]byte, st.Players())
			all[0] = []byte(answer)
			v := st.Apply(all)[0]
			if v.Status != row.Status {
				t.Fatalf("answer %q: %s (%s), want %s", answer, v.Status, v.Reason, row.Status)
			}
			if v.Action == nil {
				t.Fatal("no action applied for seat 0")
			}
		})
	}
	for row := range answers {
		if !known[row] {
			t.Errorf("an answer for %q, which is not a row of the table", row)
		}
	}
}
