package meter

// Subsections of the "name" custom section that are keyed by function index.
const (
	namesFunctions = 1 // function index -> name
	namesLocals    = 2 // function index -> local index -> name
	namesLabels    = 3 // function index -> label index -> name
)

// shiftNames returns the contents of a "name" section (after its own name)
// with every function index moved past the new import. Names only help stack
// traces, so a section that does not parse is dropped (ok false) rather than
// refused.
func shiftNames(b []byte, funcImports uint32) (out []byte, ok bool) {
	r := &reader{b: b}
	for !r.done() && r.err == nil {
		id := r.byte()
		size := r.u32()
		sub := &reader{b: r.bytes(int(size))}
		if r.err != nil {
			return nil, false
		}
		var c []byte
		switch id {
		case namesFunctions:
			c = shiftNameMap(sub, funcImports, nil)
		case namesLocals, namesLabels:
			n := sub.count()
			c = appendU32(c, uint32(n))
			for i := 0; i < n && sub.err == nil; i++ {
				c = appendU32(c, shiftIndex(sub.u32(), funcImports))
				c = copyNameMap(sub, c)
			}
		default:
			c = sub.b
			sub.pos = len(sub.b)
		}
		if sub.err != nil || !sub.done() {
			return nil, false
		}
		out = append(out, id)
		out = appendU32(out, uint32(len(c)))
		out = append(out, c...)
	}
	return out, r.err == nil
}

func shiftIndex(idx, funcImports uint32) uint32 {
	if idx >= funcImports {
		return idx + 1
	}
	return idx
}

// shiftNameMap copies a name map keyed by function index, shifted.
func shiftNameMap(r *reader, funcImports uint32, c []byte) []byte {
	n := r.count()
	c = appendU32(c, uint32(n))
	for i := 0; i < n && r.err == nil; i++ {
		c = appendU32(c, shiftIndex(r.u32(), funcImports))
		c = appendName(c, r.name())
	}
	return c
}

// copyNameMap copies a name map whose keys do not change (locals, labels).
func copyNameMap(r *reader, c []byte) []byte {
	start := r.pos
	n := r.count()
	for i := 0; i < n && r.err == nil; i++ {
		r.u32()
		r.name()
	}
	return append(c, r.b[start:r.pos]...)
}
