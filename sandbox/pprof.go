package sandbox

import (
	"compress/gzip"
	"encoding/binary"
	"io"
)

// WritePprof writes the profile in the format of `go tool pprof` (the
// gzipped protocol buffer of github.com/google/pprof's profile.proto),
// encoded here since the module is no dependency of the project. Every
// node of the call tree is one sample whose stack is the path to it, with
// three values: the fuel of every phase, of the answers (the default) and
// of start-up.
func (p *Profile) WritePprof(w io.Writer) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var e pbuf
	strs := map[string]int64{}
	str := func(s string) int64 {
		if i, ok := strs[s]; ok {
			return i
		}
		i := int64(len(strs))
		strs[s] = i
		e.bytes(6, []byte(s)) // string_table
		return i
	}
	str("")
	valueType := func(typ, unit string) []byte {
		var v pbuf
		v.int(1, str(typ))
		v.int(2, str(unit))
		return v.b
	}
	for _, t := range []string{"fuel", "answers", "startup"} {
		e.bytes(1, valueType(t, "units")) // sample_type
	}
	// Function and location i+1 are function id i; id len(names)+1 is the
	// root, where instantiation is paid.
	for fn := -1; fn < len(p.names); fn++ {
		id := int64(fn + 1)
		if fn < 0 {
			id = int64(len(p.names) + 1)
		}
		name := str(p.name(int32(fn)))
		var f pbuf
		f.int(1, id)
		f.int(2, name)
		f.int(3, name)
		e.bytes(5, f.b) // function
		var line, loc pbuf
		line.int(1, id)
		loc.int(1, id)
		loc.bytes(4, line.b)
		e.bytes(4, loc.b) // location
	}
	for i, n := range p.nodes {
		all := n.self[phaseStartup] + n.self[phaseAnswer] + n.self[phaseBetween]
		if all == 0 {
			continue
		}
		var locs, vals, s pbuf
		if i == 0 {
			locs.varint(uint64(len(p.names) + 1))
		}
		for a := int32(i); a > 0; a = p.nodes[a].parent {
			locs.varint(uint64(p.nodes[a].fn + 1))
		}
		for _, v := range []int64{all, n.self[phaseAnswer], n.self[phaseStartup]} {
			vals.varint(uint64(v))
		}
		s.bytes(1, locs.b) // location_id, packed
		s.bytes(2, vals.b) // value, packed
		e.bytes(2, s.b)    // sample
	}
	e.bytes(11, valueType("fuel", "units")) // period_type
	e.int(12, 1)                            // period
	e.int(14, str("answers"))               // default_sample_type
	gz := gzip.NewWriter(w)
	if _, err := gz.Write(e.b); err != nil {
		return err
	}
	return gz.Close()
}

// pbuf is the little of the protocol buffer encoding a profile needs.
type pbuf struct{ b []byte }

func (p *pbuf) varint(v uint64) { p.b = binary.AppendUvarint(p.b, v) }

// int writes a varint field (wire type 0).
func (p *pbuf) int(field int, v int64) {
	p.varint(uint64(field) << 3)
	p.varint(uint64(v))
}

// bytes writes a length-delimited field (wire type 2).
func (p *pbuf) bytes(field int, v []byte) {
	p.varint(uint64(field)<<3 | 2)
	p.varint(uint64(len(v)))
	p.b = append(p.b, v...)
}
