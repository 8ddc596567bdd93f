// Command dots-and-boxes-search is the Arena house's strongest Dots and Boxes
// player as a wasm bot: the engine of builtin:search (board.go, coins.go and
// search.go are copies of the repository's games/dotsandboxes files), which
// thinks until the fuel of the turn is spent. See README.md.
package main

import "strconv"

// kitLevel is builtin:search's level with a budget for the standard fuel.
// Go's wasm output spends 30,000 to 200,000 fuel on each position the search
// values at its horizon, so the 5,000,000 a turn brings pays for a few dozen:
// a wasm build stops on fuel (fuelReserve), long before kitNodes. A native
// build (the CLI's exec: kind) is not metered and stops at kitNodes.
var kitLevel = searchLevel{nodes: kitNodes, sacrifices: true, quiet: 12}

const kitNodes = 2_000

// fuelReserve is the fuel the search never touches: once the tank is down to
// it, the search stops and plays the best move of its last finished depth.
// What follows (the rest of the node, the answer) costs far less, so the bot
// never runs dry, and fuel counts are deterministic, so a replay reruns it
// move for move.
const fuelReserve = 2_500_000

// maxSpend is the most fuel one move may spend, although the tank can hold
// up to 20,000,000: the platform also stops an answer that takes 2 s of wall
// clock, and on a loaded machine a long think can come near that.
const maxSpend = 5_000_000

func main() {
	s := newSearcher(kitLevel)
	var start int64 // the tank when this move's search began
	s.stop = func() bool {
		left := FuelLeft()
		// -1: a native build, not metered.
		return left >= 0 && (left < fuelReserve || start-left > maxSpend)
	}
	Run(func(obs JSON, answer []byte) []byte {
		b, ok := boardOf(obs)
		e := b.FirstUndrawn()
		// Both seats are asked every turn; only the mover thinks.
		if ok && obs.Get("you").Int() == obs.Get("to_move").Int() && e != NoEdge {
			start = FuelLeft()
			e = s.bestMove(&b)
		}
		return appendAction(answer, e)
	})
}

// boardOf reads the drawn edges of an observation: its "h" and "v" arrays,
// flattened, are the edges in the engine's order. The boxes' owners are not
// needed: the best move maximises the boxes still to take, whoever owns the
// rest.
func boardOf(obs JSON) (Board, bool) {
	var b Board
	if obs.Get("rows").Int() != Rows || obs.Get("cols").Int() != Cols {
		return b, false
	}
	h := obs.Get("h").Ints(make([]int, 0, NumH))
	v := obs.Get("v").Ints(make([]int, 0, NumV))
	if len(h) != NumH || len(v) != NumV {
		return b, false
	}
	for i, d := range append(h, v...) {
		if d != 0 {
			b.Drawn |= 1 << uint(i)
		}
	}
	return b, true
}

func appendAction(dst []byte, e Edge) []byte {
	if e == NoEdge {
		return append(dst, "{}"...)
	}
	r, c := e.RC()
	orient := "V"
	if e.Horizontal() {
		orient = "H"
	}
	dst = append(dst, `{"orient":"`...)
	dst = append(dst, orient...)
	dst = append(dst, `","r":`...)
	dst = strconv.AppendInt(dst, int64(r), 10)
	dst = append(dst, `,"c":`...)
	dst = strconv.AppendInt(dst, int64(c), 10)
	return append(dst, '}')
}
