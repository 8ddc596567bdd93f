// Command fuelbot plays Dots and Boxes with the first undrawn edge and logs,
// on each turn, the tank the observation announced and what sdk.FuelLeft
// reads live, for internal/kits' TestFuelLeft.
package main

import (
	"fmt"
	"os"

	"github.com/arenabots/arena/sdk"
)

func main() {
	sdk.Run(func(obs sdk.JSON, answer []byte) []byte {
		fmt.Fprintf(os.Stderr, "left=%d live=%d\n", obs.Get("fuel").Get("left").Int(), sdk.FuelLeft())
		for _, lines := range []struct{ orient, field string }{{"H", "h"}, {"V", "v"}} {
			for r, row := range obs.Get(lines.field).Elems() {
				for c, drawn := range row.Elems() {
					if !drawn.Bool() {
						return fmt.Appendf(answer, `{"orient":%q,"r":%d,"c":%d}`, lines.orient, r, c)
					}
				}
			}
		}
		return append(answer, "{}"...)
	})
}
