package meter

// The subsections of the "name" custom section that are kept.
const (
	namesModule    = 0 // the module's name
	namesFunctions = 1 // function index -> name
)

// shiftNames returns the contents of a "name" section (after its own name)
// with every function index moved past the new import, keeping only the
// module's name and the functions' names, the parts stack traces show. Local
// and label names are dropped, and a section naming more functions than the
// module has (funcs, imports included) is dropped whole: wazero allocates
// what a section declares, and a 32 MiB section of 16 million two-byte local
// names took 600 MiB of the host's memory. Names only help stack traces, so
// a section that does not parse is dropped too (ok false) rather than
// refused.
func shiftNames(b []byte, funcImports, funcs uint32) (out []byte, ok bool) {
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
		case namesModule:
			c = sub.b
			sub.pos = len(sub.b)
		case namesFunctions:
			c = shiftNameMap(sub, funcImports, funcs, nil)
		default:
			continue
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

// shiftNameMap copies a name map keyed by function index, shifted, unless it
// names more than funcs functions.
func shiftNameMap(r *reader, funcImports, funcs uint32, c []byte) []byte {
	n := r.count()
	if uint64(n) > uint64(funcs) {
		r.fail("the name section names %d functions, more than the module's %d", n, funcs)
		return nil
	}
	c = appendU32(c, uint32(n))
	for i := 0; i < n && r.err == nil; i++ {
		c = appendU32(c, shiftIndex(r.u32(), funcImports))
		c = appendName(c, r.name())
	}
	return c
}
