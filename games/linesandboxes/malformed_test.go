package linesandboxes

import (
	"testing"

	"github.com/arenabots/arena/game/gametest"
)

// TestMalformedTable: docs/bots.md's table "What is malformed", row by row,
// for this game's answer.
func TestMalformedTable(t *testing.T) {
	gametest.Malformed(t, Game{}, map[string]string{
		"not JSON":                            `A1 B1`,
		"an empty line":                       ` `,
		"not an object":                       `"A1-B1"`,
		"null instead of the object":          `null`,
		"a required field missing":            `{"from":"A1"}`,
		"a field name in another letter case": `{"From":"A1","to":"B1"}`,
		"null where a value is wanted":        `{"from":null,"to":"B1"}`,
		"a value of the wrong type":           `{"from":1,"to":"B1"}`,
		"a number that is not an integer":     gametest.NoSuchField,
		"an integer too large":                gametest.NoSuchField,
		"the same field twice":                `{"from":"A1","from":"A2","to":"B1"}`,
		"text after the object":               `{"from":"A1","to":"B1"}x`,
		"a value outside its vocabulary":      `{"from":"A01","to":"B1"}`,
		"extra fields are ignored":            `{"from":"A1","to":"B1","note":{"x":[1]}}`,
		"white space around the object":       " {\"from\":\"b1\",\"to\":\"a1\"}\r",
	})
}
