package wasmtest

import "fmt"

// Tools for editing a whole module at the level of its sections, for hostile
// modules the Echo options do not describe (a start section, a name section,
// more imports, exports, tables or functions).

// Section is one top-level section of a module.
type Section struct {
	ID      byte
	Content []byte
}

// Sec is the section of that id and content.
func Sec(id byte, content []byte) Section { return Section{ID: id, Content: content} }

// sectionOrder is the position a known section takes in a module.
var sectionOrder = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

// WithSections adds sections to a module: known ones where the binary format
// wants them (replacing one of the same id), custom ones (id 0) at the end.
func WithSections(mod []byte, add ...Section) []byte {
	var secs []Section
	r := mod[8:]
	for len(r) > 0 {
		id := r[0]
		n, k := ReadULEB(r[1:])
		secs = append(secs, Sec(id, r[1+k:1+k+int(n)]))
		r = r[1+k+int(n):]
	}
	for _, a := range add {
		if a.ID == 0 {
			secs = append(secs, a)
			continue
		}
		at := len(secs)
		for i, s := range secs {
			if s.ID == a.ID {
				secs = append(secs[:i], secs[i+1:]...)
				at = i
				break
			}
			if s.ID != 0 && sectionOrder[s.ID] > sectionOrder[a.ID] {
				at = i
				break
			}
		}
		secs = append(secs[:at], append([]Section{a}, secs[at:]...)...)
	}
	out := append([]byte(nil), mod[:8]...)
	for _, s := range secs {
		out = append(out, s.ID)
		out = append(out, ULEB(uint64(len(s.Content)))...)
		out = append(out, s.Content...)
	}
	return out
}

func ReadULEB(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	panic(fmt.Sprintf("a LEB128 number runs off the end of % x", b))
}

func ULEB(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// section returns the contents of the module's section id.
func SectionOf(mod []byte, id byte) []byte {
	r := mod[8:]
	for len(r) > 0 {
		n, k := ReadULEB(r[1:])
		if r[0] == id {
			return r[1+k : 1+k+int(n)]
		}
		r = r[1+k+int(n):]
	}
	return nil
}

// ExtendVec adds n entries (their bytes) to the vector that is section id
// of the module, creating the section if it is missing.
func ExtendVec(mod []byte, id byte, n int, entries []byte) []byte {
	old := SectionOf(mod, id)
	var count uint64
	var rest []byte
	if old != nil {
		c, k := ReadULEB(old)
		count, rest = c, old[k:]
	}
	return WithSections(mod, Sec(id, cat(ULEB(count+uint64(n)), rest, entries)))
}

// Name is a name as the binary format writes it: its length, then its bytes.
func Name(s string) []byte { return name(s) }
