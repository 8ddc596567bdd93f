package dotsandboxes

import (
	"testing"

	"github.com/arenabots/arena/game/gametest"
)

// TestMalformedTable: docs/bots.md's table "What is malformed", row by row,
// for this game's answer.
func TestMalformedTable(t *testing.T) {
	gametest.Malformed(t, Game{}, map[string]string{
		"not JSON":                            `I resign`,
		"an empty line":                       ``,
		"not an object":                       `["H",0,0]`,
		"null instead of the object":          `null`,
		"a required field missing":            `{"orient":"H","r":0}`,
		"a field name in another letter case": `{"Orient":"H","r":0,"c":0}`,
		"null where a value is wanted":        `{"orient":"H","r":null,"c":0}`,
		"a value of the wrong type":           `{"orient":"H","r":"0","c":0}`,
		"a number that is not an integer":     `{"orient":"H","r":0.0,"c":0}`,
		"an integer too large":                `{"orient":"H","r":99999999999999999999,"c":0}`,
		"the same field twice":                `{"orient":"H","orient":"V","r":0,"c":0}`,
		"text after the object":               `{"orient":"H","r":0,"c":0} {}`,
		"a value outside its vocabulary":      `{"orient":"h","r":0,"c":0}`,
		"extra fields are ignored":            `{"orient":"H","r":0,"c":0,"why":null,"Orient":"V"}`,
		"white space around the object":       " \t{\"orient\":\"H\",\"r\":0,\"c\":0} ",
	})
}
