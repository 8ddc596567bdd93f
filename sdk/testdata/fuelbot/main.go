// Command fuelbot plays Dots and Boxes with the first undrawn edge and logs,
// on each turn, the tank the observation announced and what sdk.FuelLeft
// reads live, for examples' TestFuelLeft.
package main

import (
	"fmt"
	"os"

	"github.com/arenabots/arena/sdk"
)

type edge struct {
	Orient string `json:"orient"`
	R      int    `json:"r"`
	C      int    `json:"c"`
}

func main() {
	sdk.Run(func(obs sdk.JSON) edge {
		fmt.Fprintf(os.Stderr, "left=%d live=%d\n", obs.Get("fuel").Get("left").Int(), sdk.FuelLeft())
		for _, lines := range []struct{ orient, field string }{{"H", "h"}, {"V", "v"}} {
			for r, row := range obs.Get(lines.field).Elems() {
				for c, drawn := range row.Elems() {
					if !drawn.Bool() {
						return edge{lines.orient, r, c}
					}
				}
			}
		}
		return edge{}
	})
}
