package linesandboxes

// position is the part of a state the house bots search: which edges are
// drawn and how many sides of each box. The future of a game depends on
// nothing else, so bots value a position as the mover's net future boxes.
type position struct {
	g     *geom
	drawn edgeSet
	sides [MaxSize * MaxSize]int8
	left  int    // undrawn edges
	hash  uint64 // Zobrist hash of drawn
	// For fast playouts: edges next to a box with two or more sides, and
	// the boxes with exactly two and three sides.
	unsafe     edgeSet
	two, three uint64
}

// A move is the edges a..b-1 of one line, with the boxes it closes.
type move struct {
	line, a, b int8
	gain       int8  // boxes it closes
	gives      int8  // boxes it leaves with three sides
	key        int32 // the search's ordering guess
}

func (s *State) position() position {
	p := position{g: s.g, left: s.g.n}
	for e := 0; e < s.g.n; e++ {
		if s.drawn.has(e) {
			p.drawEdge(e)
		}
	}
	return p
}

func (p *position) segment(m move) Segment {
	return p.g.lineSegment(&p.g.lines[m.line], int(m.a), int(m.b))
}

// edgeGain counts the boxes drawing edge e closes.
func (p *position) edgeGain(e int) int { return p.boxesWithSides(e, 3) }

// edgeGives counts the boxes drawing edge e leaves with three sides: boxes the
// opponent can take next.
func (p *position) edgeGives(e int) int { return p.boxesWithSides(e, 2) }

func (p *position) boxesWithSides(e int, sides int8) int {
	n := 0
	for _, b := range p.g.edgeBoxes[e] {
		if b >= 0 && p.sides[b] == sides {
			n++
		}
	}
	return n
}

// moves appends every legal move with its gain and what it gives.
func (p *position) moves(dst []move) []move {
	for li := range p.g.lines {
		edges := p.g.lines[li].edges
		for a := range edges {
			gain, gives := 0, 0
			for b := a; b < len(edges) && !p.drawn.has(edges[b]); b++ {
				gain += p.edgeGain(edges[b])
				gives += p.edgeGives(edges[b])
				dst = append(dst, move{line: int8(li), a: int8(a), b: int8(b + 1), gain: int8(gain), gives: int8(gives)})
			}
		}
	}
	return dst
}

// play draws m.
func (p *position) play(m move) {
	for _, e := range p.g.lines[m.line].edges[m.a:m.b] {
		p.drawEdge(e)
	}
}

func (p *position) drawEdge(e int) {
	p.drawn.add(e)
	p.hash ^= p.g.zobrist[e]
	p.left--
	for _, b := range p.g.edgeBoxes[e] {
		if b < 0 {
			continue
		}
		p.sides[b]++
		switch p.sides[b] {
		case 2:
			p.two |= 1 << b
			for _, side := range p.g.boxEdges[b] {
				p.unsafe.add(side)
			}
		case 3:
			p.two &^= 1 << b
			p.three |= 1 << b
		case 4:
			p.three &^= 1 << b
		}
	}
}
