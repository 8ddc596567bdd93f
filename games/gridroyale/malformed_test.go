package gridroyale

import (
	"testing"

	"github.com/arenabots/arena/game/gametest"
)

// TestMalformedTable: docs/bots.md's table "What is malformed", row by row,
// for this game's answer.
func TestMalformedTable(t *testing.T) {
	gametest.Malformed(t, Game{}, map[string]string{
		"not JSON":                            `{orders:[]}`,
		"an empty line":                       ``,
		"not an object":                       `[]`,
		"null instead of the object":          `null`,
		"a required field missing":            `{"orders":[{"unit":1}]}`,
		"a field name in another letter case": `{"orders":[{"UNIT":1,"do":"STAY"}]}`,
		"null where a value is wanted":        `{"orders":null}`,
		"a value of the wrong type":           `{"spawn":"yes"}`,
		"a number that is not an integer":     `{"orders":[{"unit":1e0,"do":"STAY"}]}`,
		"an integer too large":                `{"orders":[{"unit":99999999999999999999,"do":"STAY"}]}`,
		"the same field twice":                `{"spawn":true,"spawn":false}`,
		"text after the object":               `{"orders":[]},`,
		"a value outside its vocabulary":      `{"orders":[{"unit":1,"do":"FIRE"}]}`,
		"extra fields are ignored":            `{"orders":[],"Spawn":true,"log":"x"}`,
		"white space around the object":       ` {} `,
	})
}
