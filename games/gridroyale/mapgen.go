package gridroyale

import "github.com/arenabots/arena/internal/rng"

// GenerateOre makes the ore map of a w x w grid for players seats from the
// match seed, row-major (index y*w+x). It uses integers only and the
// project's own PRNG, so a seed gives the same map everywhere, forever.
//
// The map is a sum of three layers, clamped to 0..MaxCellOre:
//
//   - a slope by ring: 150 at the centre rising linearly with the Chebyshev
//     distance from the centre to 850 on the outer ring, so the far cells,
//     which the border takes first, are the rich ones;
//   - deposits: 3 per seat, each a cone of height 1200..3399 and radius 2..4
//     (ore falls off with the squared distance), centred on a uniformly drawn
//     cell at least 5 cells (Chebyshev) from every base (redrawn up to 100
//     times); every deposit is copied under the map's rotation, so each seat
//     has its own copy;
//   - noise: 0..199 per cell, drawn once per rotation orbit;
//
// and the cells around each base are poor: within Chebyshev distance 3 the
// value is scaled by distance/4, the base itself holds 0.
//
// Every layer is invariant under the rotation about the grid's centre (the
// half turn (x,y)->(w-1-x,w-1-y) for 2 players, the quarter turn
// (x,y)->(w-1-y,x) for 4), so the map is too.
func GenerateOre(seed uint64, w, players int) []int {
	src := rng.New(rng.Mix(seed, 0x6f7265)) // "ore"
	rot := func(x, y int) (int, int) {
		if players == 2 {
			return w - 1 - x, w - 1 - y
		}
		return w - 1 - y, x
	}
	bases := make([][2]int, players)
	for i := range bases {
		bases[i][0], bases[i][1] = BasePos(w, players, i)
	}
	nearBase := func(x, y int) int { // Chebyshev distance to the nearest base
		best := w
		for _, b := range bases {
			d := max(abs(x-b[0]), abs(y-b[1]))
			best = min(best, d)
		}
		return best
	}

	var deps []deposit
	for i := 0; i < 3; i++ { // 3 rotation classes: 3 deposits per seat
		// Up to 100 draws for a centre 5 cells from every base; on a grid
		// too small for that, the draw farthest from the bases.
		x, y, far := 0, 0, -1
		for try := 0; try < 100 && far < 5; try++ {
			cx, cy := src.Intn(w), src.Intn(w)
			if d := nearBase(cx, cy); d > far {
				x, y, far = cx, cy, d
			}
		}
		r := 2 + src.Intn(3)
		d := deposit{x, y, 1200 + src.Intn(2200), r * r}
		for k := 0; k < players; k++ {
			deps = append(deps, d)
			d.x, d.y = rot(d.x, d.y)
		}
	}

	ore := make([]int, w*w)
	done := make([]bool, w*w)
	for y := 0; y < w; y++ {
		for x := 0; x < w; x++ {
			if done[y*w+x] {
				continue
			}
			noise := src.Intn(200)
			// Fill the whole orbit of (x, y) with the same value.
			ox, oy := x, y
			for k := 0; k < players; k++ {
				ore[oy*w+ox] = cellOre(ox, oy, w, noise, nearBase(ox, oy), deps)
				done[oy*w+ox] = true
				ox, oy = rot(ox, oy)
			}
		}
	}
	return ore
}

// deposit is one cluster of ore: a cone of height amp and squared radius r2.
type deposit struct{ x, y, amp, r2 int }

// cellOre is the value of one cell: the slope, the deposits and the noise,
// made poor near a base.
func cellOre(x, y, w, noise, baseDist int, deps []deposit) int {
	ring := max(abs(2*x-(w-1)), abs(2*y-(w-1))) // doubled Chebyshev distance from the centre
	v := 150 + 700*ring/(w-1)
	for _, d := range deps {
		d2 := (x-d.x)*(x-d.x) + (y-d.y)*(y-d.y)
		if d2 < d.r2 {
			v += d.amp * (d.r2 - d2) / d.r2
		}
	}
	v += noise
	if baseDist < 4 {
		v = v * baseDist / 4
	}
	return min(max(v, 0), MaxCellOre)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
