package snake

import (
	"testing"

	"github.com/arenabots/arena/game/gametest"
)

// TestMalformedTable: docs/bots.md's table "What is malformed", row by row,
// for this game's answer.
func TestMalformedTable(t *testing.T) {
	gametest.Malformed(t, Game{}, map[string]string{
		"not JSON":                            `{move:up}`,
		"an empty line":                       ``,
		"not an object":                       `["up"]`,
		"null instead of the object":          `null`,
		"a required field missing":            `{"shout":"hi"}`,
		"a field name in another letter case": `{"Move":"up"}`,
		"null where a value is wanted":        `{"move":null}`,
		"a value of the wrong type":           `{"move":1}`,
		"a number that is not an integer":     gametest.NoSuchField,
		"an integer too large":                gametest.NoSuchField,
		"the same field twice":                `{"move":"up","move":"down"}`,
		"text after the object":               `{"move":"up"}x`,
		"a value outside its vocabulary":      `{"move":"north"}`,
		"extra fields are ignored":            `{"move":"up","taunt":"x","latency":3}`,
		"white space around the object":       ` {"move":"up"} `,
	})
}
