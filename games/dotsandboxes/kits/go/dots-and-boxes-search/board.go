// Code generated from the Arena repository's games/dotsandboxes/board.go by `go generate ./internal/kits`. DO NOT EDIT.

// Package dotsandboxes is the classic game on 5x5 boxes, as the published
// rules page describes it: one undrawn edge per turn, closing a box claims it
// and earns another move, 60 turns in all.
//
// The state is a bitboard: the 60 edges fit one uint64 and each seat's boxes
// one uint32, so a move is a few bit operations and allocates nothing.
package main

import "math/bits"

// The board's fixed size.
const (
	Rows     = 5
	Cols     = 5
	NumH     = (Rows + 1) * Cols // horizontal edges, 6 rows of 5
	NumV     = Rows * (Cols + 1) // vertical edges, 5 rows of 6
	NumEdges = NumH + NumV       // 60
	NumBoxes = Rows * Cols       // 25
)

// Edge indexes follow the observation's order, which is also the order of the
// default move: every H edge row by row, then every V edge row by row. So the
// first undrawn edge is simply the lowest clear bit.
type Edge int8

// NoEdge is returned where no edge applies.
const NoEdge Edge = -1

// H returns the horizontal edge above box (r, c), r in 0..5, c in 0..4.
func H(r, c int) Edge { return Edge(r*Cols + c) }

// V returns the vertical edge left of box (r, c), r in 0..4, c in 0..5.
func V(r, c int) Edge { return Edge(NumH + r*(Cols+1) + c) }

// Horizontal reports whether e is an H edge.
func (e Edge) Horizontal() bool { return e < NumH }

// RC returns the edge's row and column in its own orientation's grid.
func (e Edge) RC() (r, c int) {
	if e.Horizontal() {
		return int(e) / Cols, int(e) % Cols
	}
	i := int(e) - NumH
	return i / (Cols + 1), i % (Cols + 1)
}

const allEdges = uint64(1)<<NumEdges - 1

var (
	// boxEdges[b] is the mask of box b's four sides.
	boxEdges [NumBoxes]uint64
	// edgeBoxes[e] are the boxes on either side of e; -1 off the board.
	edgeBoxes [NumEdges][2]int8
	// closers[e] is what Play needs for edge e: the sides of the boxes on
	// either side and their bits. A missing box has the side mask noBox,
	// which can never be complete, so Play needs no branch for it.
	closers [NumEdges][2]closer
)

type closer struct {
	sides uint64
	bit   uint32
}

const noBox = uint64(1) << 63 // not an edge: never drawn

func init() {
	for e := range edgeBoxes {
		edgeBoxes[e] = [2]int8{-1, -1}
	}
	link := func(e Edge, b int) {
		boxEdges[b] |= 1 << uint(e)
		if edgeBoxes[e][0] < 0 {
			edgeBoxes[e][0] = int8(b)
		} else {
			edgeBoxes[e][1] = int8(b)
		}
	}
	for r := 0; r < Rows; r++ {
		for c := 0; c < Cols; c++ {
			b := r*Cols + c
			link(H(r, c), b)
			link(H(r+1, c), b)
			link(V(r, c), b)
			link(V(r, c+1), b)
		}
	}
	for e, pair := range edgeBoxes {
		for i, box := range pair {
			closers[e][i] = closer{sides: noBox}
			if box >= 0 {
				closers[e][i] = closer{sides: boxEdges[box], bit: 1 << uint(box)}
			}
		}
	}
}

// Board is the whole state of a game: which edges are drawn, who owns which
// box, whose move it is. It is a plain value: copying it copies the game.
type Board struct {
	Drawn  uint64    // bit e set when edge e is drawn
	Owned  [2]uint32 // bit b set when that seat closed box b
	ToMove int8      // the seat to move
}

// Turn is the number of edges drawn, which is the number of turns played.
func (b *Board) Turn() int { return bits.OnesCount64(b.Drawn) }

// Over reports whether every edge is drawn.
func (b *Board) Over() bool { return b.Drawn == allEdges }

// IsDrawn reports whether edge e is drawn.
func (b *Board) IsDrawn(e Edge) bool { return b.Drawn&(1<<uint(e)) != 0 }

// FirstUndrawn returns the first undrawn edge in observation order: the
// default move. NoEdge when the board is full.
func (b *Board) FirstUndrawn() Edge {
	free := ^b.Drawn & allEdges
	if free == 0 {
		return NoEdge
	}
	return Edge(bits.TrailingZeros64(free))
}

// Undrawn returns the mask of undrawn edges.
func (b *Board) Undrawn() uint64 { return ^b.Drawn & allEdges }

// Score returns the number of boxes seat has closed.
func (b *Board) Score(seat int) int { return bits.OnesCount32(b.Owned[seat]) }

// Owner returns the seat that closed box (r, c), or -1.
func (b *Board) Owner(r, c int) int {
	bit := uint32(1) << uint(r*Cols+c)
	switch {
	case b.Owned[0]&bit != 0:
		return 0
	case b.Owned[1]&bit != 0:
		return 1
	}
	return -1
}

// Sides counts the drawn sides of box i.
func (b *Board) Sides(box int) int { return bits.OnesCount64(b.Drawn & boxEdges[box]) }

// Play draws the undrawn edge e for the seat to move and returns how many boxes
// it closed. Closing none passes the move to the other seat. The caller checks
// that e is undrawn.
func (b *Board) Play(e Edge) int {
	d := b.Drawn | 1<<uint(e)
	b.Drawn = d
	c := &closers[e]
	var won uint32
	if d&c[0].sides == c[0].sides {
		won = c[0].bit
	}
	if d&c[1].sides == c[1].sides {
		won |= c[1].bit
	}
	if won == 0 {
		b.ToMove ^= 1
		return 0
	}
	b.Owned[b.ToMove&1] |= won
	return bits.OnesCount32(won)
}

// Closes reports how many boxes drawing e would close.
func (b *Board) Closes(e Edge) int {
	n := 0
	for _, box := range edgeBoxes[e] {
		if box >= 0 && bits.OnesCount64(b.Drawn&boxEdges[box]) == 3 {
			n++
		}
	}
	return n
}

// Safe reports whether drawing e gives no box its third side.
func (b *Board) Safe(e Edge) bool {
	for _, box := range edgeBoxes[e] {
		if box >= 0 && bits.OnesCount64(b.Drawn&boxEdges[box]) == 2 {
			return false
		}
	}
	return true
}
