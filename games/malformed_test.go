package games_test

import (
	"testing"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
)

// The rows of docs/bots.md's table "What is malformed", in its order, with
// an answer per game (seat 0's, on the first turn). A game missing from a
// row has no field the row could apply to.
var malformedRows = []struct {
	row     string
	status  game.Status
	answers map[string]string
}{
	{"not JSON", game.Malformed, map[string]string{
		"dots-and-boxes": `I resign`, "lines-and-boxes": `A1 B1`, "grid-royale": `{orders:[]}`}},
	{"an empty line", game.Malformed, map[string]string{
		"dots-and-boxes": ``, "lines-and-boxes": ` `, "grid-royale": ``}},
	{"not an object", game.Malformed, map[string]string{
		"dots-and-boxes": `["H",0,0]`, "lines-and-boxes": `"A1-B1"`, "grid-royale": `[]`}},
	{"null instead of the object", game.Malformed, map[string]string{
		"dots-and-boxes": `null`, "lines-and-boxes": `null`, "grid-royale": `null`}},
	{"a required field missing", game.Malformed, map[string]string{
		"dots-and-boxes": `{"orient":"H","r":0}`, "lines-and-boxes": `{"from":"A1"}`, "grid-royale": `{"orders":[{"unit":1}]}`}},
	{"a field name in another letter case", game.Malformed, map[string]string{
		"dots-and-boxes": `{"Orient":"H","r":0,"c":0}`, "lines-and-boxes": `{"From":"A1","to":"B1"}`, "grid-royale": `{"orders":[{"UNIT":1,"do":"STAY"}]}`}},
	{"null where a value is wanted", game.Malformed, map[string]string{
		"dots-and-boxes": `{"orient":"H","r":null,"c":0}`, "lines-and-boxes": `{"from":null,"to":"B1"}`, "grid-royale": `{"orders":null}`}},
	{"a value of the wrong type", game.Malformed, map[string]string{
		"dots-and-boxes": `{"orient":"H","r":"0","c":0}`, "lines-and-boxes": `{"from":1,"to":"B1"}`, "grid-royale": `{"spawn":"yes"}`}},
	{"a number that is not an integer", game.Malformed, map[string]string{
		"dots-and-boxes": `{"orient":"H","r":0.0,"c":0}`, "grid-royale": `{"orders":[{"unit":1e0,"do":"STAY"}]}`}},
	{"an integer too large", game.Malformed, map[string]string{
		"dots-and-boxes": `{"orient":"H","r":99999999999999999999,"c":0}`, "grid-royale": `{"orders":[{"unit":99999999999999999999,"do":"STAY"}]}`}},
	{"the same field twice", game.Malformed, map[string]string{
		"dots-and-boxes": `{"orient":"H","orient":"V","r":0,"c":0}`, "lines-and-boxes": `{"from":"A1","from":"A2","to":"B1"}`, "grid-royale": `{"spawn":true,"spawn":false}`}},
	{"text after the object", game.Malformed, map[string]string{
		"dots-and-boxes": `{"orient":"H","r":0,"c":0} {}`, "lines-and-boxes": `{"from":"A1","to":"B1"}x`, "grid-royale": `{"orders":[]},`}},
	{"a value outside its vocabulary", game.Malformed, map[string]string{
		"dots-and-boxes": `{"orient":"h","r":0,"c":0}`, "lines-and-boxes": `{"from":"A01","to":"B1"}`, "grid-royale": `{"orders":[{"unit":1,"do":"FIRE"}]}`}},
	// Not malformed: extra fields, whatever their name or value, and white
	// space around the object.
	{"extra fields are ignored", game.OK, map[string]string{
		"dots-and-boxes": `{"orient":"H","r":0,"c":0,"why":null,"Orient":"V"}`, "lines-and-boxes": `{"from":"A1","to":"B1","note":{"x":[1]}}`, "grid-royale": `{"orders":[],"Spawn":true,"log":"x"}`}},
	{"white space around the object", game.OK, map[string]string{
		"dots-and-boxes": " \t{\"orient\":\"H\",\"r\":0,\"c\":0} ", "lines-and-boxes": " {\"from\":\"b1\",\"to\":\"a1\"}\r", "grid-royale": ` {} `}},
}

func TestMalformedTable(t *testing.T) {
	for _, row := range malformedRows {
		for _, g := range games.All() {
			id := g.Info().ID
			answer, ok := row.answers[id]
			if !ok {
				continue
			}
			t.Run(row.row+"/"+id, func(t *testing.T) {
				st, err := g.New(game.Config{Seed: 1, Players: g.Info().Players[0]})
				if err != nil {
					t.Fatal(err)
				}
				answers := make([][]byte, st.Players())
				answers[0] = []byte(answer)
				v := st.Apply(answers)[0]
				if v.Status != row.status {
					t.Fatalf("answer %q: %s (%s), want %s", answer, v.Status, v.Reason, row.status)
				}
				if v.Action == nil {
					t.Fatal("no action applied for seat 0")
				}
			})
		}
	}
}
