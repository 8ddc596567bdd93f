package dotsandboxes

import "math/bits"

// The strings-and-coins helpers that the house bots and the search share:
// which edges capture, which are safe, and the choice at a chain's end.
// This file, board.go and search.go are the engine, and they import nothing
// but math/bits: the search starter kit (examples/go/dots-and-boxes-search)
// is a copy of them.

// nthBit returns the index of the n-th set bit of mask (n from 0).
func nthBit(mask uint64, n int) Edge {
	for ; n > 0; n-- {
		mask &= mask - 1
	}
	return Edge(bits.TrailingZeros64(mask))
}

// classify splits the undrawn edges into those that close a box now, those
// that give no box its third side, and the rest.
func (b *Board) classify() (closing, safe, unsafe uint64) {
	// One pass over the boxes: an edge closes a box when one of its boxes
	// has three sides, and is unsafe when one has two.
	var three, two uint64
	for box := range boxEdges {
		switch bits.OnesCount64(b.Drawn & boxEdges[box]) {
		case 3:
			three |= boxEdges[box]
		case 2:
			two |= boxEdges[box]
		}
	}
	free := b.Undrawn()
	closing = free & three
	unsafe = free & two &^ three
	safe = free &^ (three | two)
	return
}

// otherBox returns the box across edge e from box, or -1 for the border.
func otherBox(e Edge, box int) int {
	pair := edgeBoxes[e]
	if int(pair[0]) == box {
		return int(pair[1])
	}
	return int(pair[0])
}

// freeSides returns the undrawn sides of box, except the edge not.
func (b *Board) freeSides(box int, not Edge) uint64 {
	return b.Undrawn() & boxEdges[box] &^ (1 << uint(not))
}

// declineMove looks at a capture e that ends a chain or loop and returns the
// move that declines its last boxes, with how many boxes that gives away:
// chain end b1(3 sides) -e- b2(2 sides) -x- border or a box that stays open:
// draw x and give 2; loop end b1(3) -e- b2(2) -m- b3(2) -y- b4(3): draw m and
// give 4. It returns NoEdge where e is no such capture.
func (b *Board) declineMove(e Edge) (Edge, int) {
	pair := edgeBoxes[e]
	for i, b1 := range pair {
		b2 := int(pair[1-i])
		if b1 < 0 || b2 < 0 || b.Sides(int(b1)) != 3 || b.Sides(b2) != 2 {
			continue
		}
		x := Edge(bits.TrailingZeros64(b.freeSides(b2, e)))
		b3 := otherBox(x, b2)
		if b3 < 0 || b.Sides(b3) <= 1 {
			return x, 2
		}
		if b.Sides(b3) != 2 {
			continue
		}
		y := Edge(bits.TrailingZeros64(b.freeSides(b3, x)))
		if b4 := otherBox(y, b3); b4 >= 0 && b.Sides(b4) == 3 && b4 != int(b1) {
			return x, 4
		}
	}
	return NoEdge, 0
}

// captureChoice picks the capture to make now: a plain one (not the end of
// a chain or loop) if there is one, since those are always worth taking.
// When only ends are left and they all belong to one chain or loop (a loop's
// two ends share their decline move), it also returns the move that declines
// its last boxes, and how many boxes that gives away. With ends of several
// structures, it takes the one that would cost most to decline, leaving the
// cheapest decision for last.
func (b *Board) captureChoice(closing uint64) (take, decline Edge, given int) {
	take, decline = NoEdge, NoEdge
	single := true
	for m := closing; m != 0; m &= m - 1 {
		e := Edge(bits.TrailingZeros64(m))
		d, g := b.declineMove(e)
		if d == NoEdge || b.Closes(e) == 2 {
			return e, NoEdge, 0
		}
		if take != NoEdge && d != decline {
			single = false
		}
		if take == NoEdge || g > given {
			take, decline, given = e, d, g
		}
	}
	if !single {
		return take, NoEdge, 0
	}
	return take, decline, given
}

// takeAll plays every capture until none is left.
func (b *Board) takeAll() int {
	n := 0
	for {
		closing, _, _ := b.classify()
		if closing == 0 {
			return n
		}
		n += b.Play(Edge(bits.TrailingZeros64(closing)))
	}
}
