// Code generated from the Arena repository's games/dotsandboxes/coins.go by `go generate ./internal/kits`. DO NOT EDIT.

package main

import "math/bits"

// The strings-and-coins helpers that the house bots and the search share:
// which edges capture, which are safe, and the choice at a chain's end.
// This file, board.go and search.go are the engine, and they import nothing
// but math/bits: the search starter kit (games/dotsandboxes/kits/go/dots-and-boxes-search)
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
	// The drawn sides of all boxes at once, a bit per box in four masks,
	// summed by bitwise adders: this runs at every node of the search.
	top, bottom, left, right := sideMasks(b.Drawn)
	ones1, twos1 := top^bottom, top&bottom
	ones2, twos2 := left^right, left&right
	ones, carry := ones1^ones2, ones1&ones2
	twos := twos1 ^ twos2 ^ carry
	fours := twos1&twos2 | carry&(twos1^twos2)
	three := boxSides(ones & twos &^ fours)
	two := boxSides(twos &^ ones &^ fours)
	free := b.Undrawn()
	closing = free & three
	unsafe = free & two &^ three
	safe = free &^ (three | two)
	return
}

// boxMask is a set of boxes, a bit per box (r*Cols+c).
const boxMask = 1<<NumBoxes - 1

// sideMasks returns, for each side of a box, the set of boxes whose side it
// is that is drawn. H(r, c) is the top of box (r, c) and the bottom of box
// (r-1, c); V(r, c) is the left of box (r, c) and the right of (r, c-1).
func sideMasks(drawn uint64) (top, bottom, left, right uint32) {
	top = uint32(drawn) & boxMask
	bottom = uint32(drawn>>Cols) & boxMask
	v := drawn >> NumH
	return top, bottom, packRows(v), packRows(v >> 1)
}

// The V edges come in rows of Cols+1, the boxes in rows of Cols: packRows
// drops the last bit of each row of six, spreadRows puts a gap back. They
// are written out for five rows (the board's), since they run at every
// node.
var _, _ = [1]int{}[Rows-5], [1]int{}[Cols-5]

func packRows(v uint64) uint32 {
	return uint32(v&0x1f | v>>1&0x3e0 | v>>2&0x7c00 | v>>3&0xf8000 | v>>4&0x1f00000)
}

func spreadRows(s uint32) uint64 {
	x := uint64(s)
	return x&0x1f | x&0x3e0<<1 | x&0x7c00<<2 | x&0xf8000<<3 | x&0x1f00000<<4
}

// boxSides is the set of edges that are sides of the boxes in set.
func boxSides(set uint32) uint64 {
	v := spreadRows(set)
	return uint64(set) | uint64(set)<<Cols | (v|v<<1)<<NumH
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
