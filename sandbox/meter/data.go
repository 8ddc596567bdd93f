package meter

import "slices"

// A Span is a range of linear memory, [Start, End) in bytes.
type Span struct{ Start, End uint64 }

// DataSpans returns the ranges of memory 0 that the module's active data
// segments write at instantiation, rounded out to whole pages of pageSize
// bytes, in order and merged where they touch: the pages instantiation is
// sure to write. The sandbox has the kernel hand them out in one call before
// wazero copies the segments in, rather than one page fault at a time
// (which was a third of a cheap match's CPU for a Go bot's 22,000 segments).
//
// It reads a module the meter produced or accepted; anything it does not
// expect (a segment offset that is not a constant, a malformed section)
// ends the reading with the spans found so far, which only means fewer
// pages handed out early: instantiation itself is unchanged.
func DataSpans(wasm []byte, pageSize uint64) []Span {
	if len(wasm) < 8 || pageSize == 0 {
		return nil
	}
	r := &reader{b: wasm, pos: 8}
	for !r.done() && r.err == nil {
		id := r.byte()
		size := r.u32()
		content := r.bytes(int(size))
		if r.err != nil {
			return nil
		}
		if id == secData {
			return dataSpans(&reader{b: content}, pageSize)
		}
	}
	return nil
}

func dataSpans(r *reader, pageSize uint64) []Span {
	var spans []Span
	n := r.count()
	for i := 0; i < n && r.err == nil; i++ {
		mem := uint32(0)
		switch flag := r.u32(); flag {
		case 0:
		case 2:
			mem = r.u32()
		case 1: // passive: written only by memory.init
			r.bytes(r.count())
			continue
		default:
			return merge(spans)
		}
		// The offset: i32.const N end (a global.get's value is not known here).
		if r.byte() != 0x41 {
			return merge(spans)
		}
		offset := uint64(uint32(r.signed(32)))
		if r.byte() != 0x0b {
			return merge(spans)
		}
		length := uint64(len(r.bytes(r.count())))
		if r.err != nil || mem != 0 || length == 0 {
			continue
		}
		start := offset / pageSize * pageSize
		end := (offset + length + pageSize - 1) / pageSize * pageSize
		spans = append(spans, Span{start, end})
	}
	return merge(spans)
}

// merge sorts spans and joins those that overlap or touch.
func merge(spans []Span) []Span {
	slices.SortFunc(spans, func(a, b Span) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	out := spans[:0]
	for _, s := range spans {
		if k := len(out) - 1; k >= 0 && s.Start <= out[k].End {
			out[k].End = max(out[k].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// maxJoinGap is the most zero bytes joinData writes between two segments it
// joins.
const maxJoinGap = 32

// joinData returns a data section (its contents, after the section id and
// size) that writes the same bytes at instantiation in fewer segments, and
// whether it made one. Go's linker cuts its data at every short run of
// zeros: 22,000 segments of 24 bytes on average for a starter kit, and
// wazero evaluates each one's offset and copies it on its own at every
// instantiation. Consecutive active segments of memory 0 at constant
// offsets are joined when the next starts at most maxJoinGap bytes after the
// previous ends and no earlier segment wrote into the gap, which is then
// written as zeros, as a fresh memory holds there. A segment that starts
// before the previous one ends is never joined to it (a later segment
// overwrites an earlier one, which joining would reorder). Any other kind
// of segment leaves the section as it is. The caller makes sure no
// instruction names a segment by index.
//
// Bounds: the joined segment ends where its last member ends, which is
// where the furthest of them ends, so it is out of the memory's bounds
// exactly when one of its members is, and instantiation fails as before.
func joinData(content []byte) ([]byte, bool) {
	type segment struct {
		offset uint64
		data   []byte
	}
	r := &reader{b: content}
	n := r.count()
	segs := make([]segment, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		if r.u32() != 0 || r.byte() != 0x41 {
			return nil, false
		}
		offset := uint64(uint32(r.signed(32)))
		if r.byte() != 0x0b {
			return nil, false
		}
		segs = append(segs, segment{offset, r.bytes(r.count())})
	}
	if r.err != nil || !r.done() || len(segs) < 2 {
		return nil, false
	}
	var joined []segment
	var written spanSet // every segment's bytes before the one at hand
	for _, s := range segs {
		end := s.offset + uint64(len(s.data))
		if k := len(joined) - 1; k >= 0 {
			g := &joined[k]
			gEnd := g.offset + uint64(len(g.data))
			if s.offset >= gEnd && s.offset-gEnd <= maxJoinGap && !written.intersects(gEnd, s.offset) {
				g.data = append(g.data, make([]byte, s.offset-gEnd)...)
				g.data = append(g.data, s.data...)
				written.add(s.offset, end)
				continue
			}
		}
		joined = append(joined, segment{s.offset, append([]byte(nil), s.data...)})
		written.add(s.offset, end)
	}
	if len(joined) == len(segs) {
		return nil, false
	}
	out := appendU32(nil, uint32(len(joined)))
	for _, g := range joined {
		out = append(out, 0, 0x41)
		out = appendS64(out, int64(int32(uint32(g.offset))))
		out = append(out, 0x0b)
		out = appendU32(out, uint32(len(g.data)))
		out = append(out, g.data...)
	}
	return out, true
}

// A spanSet is a set of byte ranges, kept as sorted, disjoint spans.
type spanSet []Span

// add puts [start, end) in the set.
func (s *spanSet) add(start, end uint64) {
	if start >= end {
		return
	}
	set := *s
	// The first span that ends at or after start: it or later ones may
	// join the new one.
	i, _ := slices.BinarySearchFunc(set, start, func(x Span, t uint64) int {
		if x.End < t {
			return -1
		}
		return 1
	})
	j := i
	for j < len(set) && set[j].Start <= end {
		start, end = min(start, set[j].Start), max(end, set[j].End)
		j++
	}
	*s = slices.Replace(set, i, j, Span{start, end})
}

// intersects is whether any byte of [start, end) is in the set.
func (s spanSet) intersects(start, end uint64) bool {
	if start >= end {
		return false
	}
	i, _ := slices.BinarySearchFunc(s, start, func(x Span, t uint64) int {
		if x.End <= t {
			return -1
		}
		return 1
	})
	return i < len(s) && s[i].Start < end
}
