package wasmtest

import (
	"fmt"
	"strings"
)

// Echo describes a small hand-assembled WASI command: it reads stdin and
// answers `{}` to every read, until end of file. The options make it hostile
// in ways no compiler is asked to be.
type Echo struct {
	FaultOnRead int    // > 0: fail on this read of stdin (1 = the first)...
	Fault       string // ...with "unreachable" (a trap) or "recurse" (endless recursion)
	ExtraFuncs  int    // unused functions added to the module (a compile bomb)
	DataBytes   int    // an extra active data segment of this size
	Import      string // an extra function import "module.name" of type () -> ()
	NoStart     bool   // do not export _start
	MinPages    int    // > 0: the memory's declared minimum, in 64 KiB pages
	MaxPages    int    // > 0: the memory's declared maximum

	// Turn is code (without its final end) of a function of type () -> ()
	// called after every read, before the answer is written; it has
	// TurnLocals locals of type i32 (TurnLocals2 more in a second group, to
	// reach counts no single LEB128 holds) and can call the WASI imports
	// FdRead, FdWrite, RandomGet, PollOneoff and ClockTimeGet, and itself
	// (TurnFunc).
	Turn        []byte
	TurnLocals  uint32
	TurnLocals2 uint32
	// Tables: a funcref table of TableMin elements (maximum TableMax when
	// HasTableMax), present when Table is set.
	Table       bool
	TableMin    uint32
	TableMax    uint32
	HasTableMax bool
	Globals     int // extra immutable i32 globals
	Types       int // extra function types
	DataSegs    int // extra one-byte data segments
	ElemSegs    int // extra empty element segments (needs Table)
	Exports     int // extra exports of the memory under other names
}

// Function indices of the echo module's imports, for Turn code.
const (
	FdRead       = 0
	FdWrite      = 1
	RandomGet    = 2
	PollOneoff   = 3
	ClockTimeGet = 4
	wasiImports  = 5
)

// TurnFunc is the index of the Turn function (when Import is empty).
const TurnFunc = wasiImports + 2

// The memory layout of the echo module.
const (
	inIovec   = 0    // {ptr 1024, len 65536}: where stdin is read
	outIovec  = 8    // {ptr 16, len 3}: the answer
	answerAt  = 16   // "{}\n"
	nreadAt   = 20   // fd_read's byte count
	nwrittenA = 24   // fd_write's byte count
	readsAt   = 28   // the number of reads so far
	bufAt     = 1024 // the stdin buffer
	bigDataAt = 128 << 10
)

// Module assembles the echo module.
func (e Echo) Module() []byte {
	const i32 = 0x7f
	var types, imports, funcs, mem, exports, code, data []byte

	// Type 0: the WASI fd_read/fd_write/poll_oneoff signature; type 1:
	// () -> (); type 2: random_get; type 3: clock_time_get.
	const i64 = 0x7e
	tys := cat([]byte{0x60, 4, i32, i32, i32, i32, 1, i32}, []byte{0x60, 0, 0},
		[]byte{0x60, 2, i32, i32, 1, i32}, []byte{0x60, 3, i32, i64, i32, 1, i32})
	for i := 0; i < e.Types; i++ {
		// (i32 x k) -> () for distinct k, as a compiler would not.
		tys = cat(tys, []byte{0x60}, uleb(uint32(i%200+5)), make([]byte, 0), fill(i%200+5, i32), []byte{0})
	}
	types = vec(4+e.Types, tys)

	nImports := wasiImports
	const wasi = "wasi_snapshot_preview1"
	imp := cat(importFunc(wasi, "fd_read", 0), importFunc(wasi, "fd_write", 0), importFunc(wasi, "random_get", 2),
		importFunc(wasi, "poll_oneoff", 0), importFunc(wasi, "clock_time_get", 3))
	if e.Import != "" {
		mod, name, _ := strings.Cut(e.Import, ".")
		imp = cat(imp, importFunc(mod, name, 1))
		nImports++
	}
	imports = vec(nImports, imp)

	// Function nImports is _start, nImports+1 recurses forever, nImports+2
	// is the turn, then the extras.
	nFuncs := 3 + e.ExtraFuncs
	var fidx []byte
	for i := 0; i < nFuncs; i++ {
		fidx = append(fidx, 1)
	}
	funcs = vec(nFuncs, fidx)

	pages := 2 + (e.DataBytes+0xffff)/0x10000
	if e.MinPages > 0 {
		pages = e.MinPages
	}
	if e.MaxPages > 0 {
		mem = vec(1, cat([]byte{1}, uleb(uint32(pages)), uleb(uint32(e.MaxPages))))
	} else {
		mem = vec(1, cat([]byte{0}, uleb(uint32(pages))))
	}
	var table, globals, elems []byte
	if e.Table {
		if e.HasTableMax {
			table = vec(1, cat([]byte{0x70, 1}, uleb(e.TableMin), uleb(e.TableMax)))
		} else {
			table = vec(1, cat([]byte{0x70, 0}, uleb(e.TableMin)))
		}
		// Passive, empty element segments: flags 1, elemkind funcref, no elements.
		elems = vec(e.ElemSegs, bytesRepeat([]byte{1, 0, 0}, e.ElemSegs))
	}
	if e.Globals > 0 {
		globals = vec(e.Globals, bytesRepeat([]byte{i32, 0, 0x41, 0, 0x0b}, e.Globals))
	}

	exp := cat(name("memory"), []byte{2, 0})
	nExports := 1
	for i := 0; i < e.Exports; i++ {
		exp = cat(exp, name(fmt.Sprintf("m%d", i)), []byte{2, 0})
		nExports++
	}
	if !e.NoStart {
		exp = cat(exp, name("_start"), []byte{0}, uleb(uint32(nImports)))
		nExports++
	}
	exports = vec(nExports, exp)

	recurse := cat([]byte{0x10}, uleb(uint32(nImports+1)))
	turn := cat([]byte{0}, e.Turn, []byte{0x0b})
	if e.TurnLocals > 0 || e.TurnLocals2 > 0 {
		turn = cat([]byte{2}, uleb(e.TurnLocals), []byte{i32}, uleb(e.TurnLocals2), []byte{i32}, e.Turn, []byte{0x0b})
	}
	bodies := [][]byte{e.startBody(nImports), body(recurse), cat(uleb(uint32(len(turn))), turn)}
	extra := body([]byte{0x41, 1, 0x1a}) // i32.const 1; drop
	for i := 0; i < e.ExtraFuncs; i++ {
		bodies = append(bodies, extra)
	}
	code = vec(len(bodies), cat(bodies...))

	head := cat(le32(bufAt), le32(0x10000), le32(answerAt), le32(3), []byte("{}\n"))
	segs := cat([]byte{0, 0x41, 0, 0x0b}, uleb(uint32(len(head))), head)
	nSegs := 1
	if e.DataBytes > 0 {
		big := make([]byte, e.DataBytes)
		for i := range big {
			big[i] = byte(i*7 + 1)
		}
		segs = cat(segs, []byte{0, 0x41}, sleb(int64(bigDataAt)), []byte{0x0b}, uleb(uint32(len(big))), big)
		nSegs++
	}
	segs = cat(segs, bytesRepeat([]byte{1, 1, 0}, e.DataSegs)) // passive, one zero byte each
	nSegs += e.DataSegs
	data = vec(nSegs, segs)

	out := cat([]byte{0, 'a', 's', 'm', 1, 0, 0, 0},
		section(1, types), section(2, imports), section(3, funcs))
	if table != nil {
		out = cat(out, section(4, table))
	}
	out = cat(out, section(5, mem))
	if globals != nil {
		out = cat(out, section(6, globals))
	}
	out = cat(out, section(7, exports))
	if elems != nil && e.ElemSegs > 0 {
		out = cat(out, section(9, elems))
	}
	if e.DataSegs > 0 {
		out = cat(out, section(12, uleb(uint32(nSegs))))
	}
	return cat(out, section(10, code), section(11, data))
}

func fill(n int, b byte) []byte { return bytesRepeat([]byte{b}, n) }

func bytesRepeat(b []byte, n int) []byte {
	out := make([]byte, 0, len(b)*n)
	for i := 0; i < n; i++ {
		out = append(out, b...)
	}
	return out
}

func (e Echo) startBody(nImports int) []byte {
	c := func(v int32) []byte { return cat([]byte{0x41}, sleb(int64(v))) } // i32.const
	load := []byte{0x28, 2, 0}
	b := []byte{0x03, 0x40} // loop
	// fd_read(0, inIovec, 1, nreadAt); stop at end of file.
	b = cat(b, c(0), c(inIovec), c(1), c(nreadAt), []byte{0x10, 0, 0x1a})
	b = cat(b, c(nreadAt), load, []byte{0x45, 0x0d, 1})
	if e.FaultOnRead > 0 {
		fault := []byte{0x00} // unreachable
		if e.Fault == "recurse" {
			fault = cat([]byte{0x10}, uleb(uint32(nImports+1)))
		}
		// reads++; if reads == FaultOnRead { fault }
		b = cat(b, c(readsAt), c(readsAt), load, c(1), []byte{0x6a, 0x36, 2, 0})
		b = cat(b, c(readsAt), load, c(int32(e.FaultOnRead)), []byte{0x46, 0x04, 0x40}, fault, []byte{0x0b})
	}
	// the turn's own work
	b = cat(b, []byte{0x10}, uleb(uint32(nImports+2)))
	// fd_write(1, outIovec, 1, nwrittenA)
	b = cat(b, c(1), c(outIovec), c(1), c(nwrittenA), []byte{0x10, 1, 0x1a})
	b = cat(b, []byte{0x0c, 0, 0x0b}) // br 0; end loop
	return body(b)
}

func body(instrs []byte) []byte {
	b := cat([]byte{0}, instrs, []byte{0x0b}) // no locals; end
	return cat(uleb(uint32(len(b))), b)
}

func importFunc(mod, nm string, typ uint32) []byte {
	return cat(name(mod), name(nm), []byte{0}, uleb(typ))
}

func section(id byte, content []byte) []byte {
	return cat([]byte{id}, uleb(uint32(len(content))), content)
}

func vec(n int, items []byte) []byte { return cat(uleb(uint32(n)), items) }

func name(s string) []byte { return cat(uleb(uint32(len(s))), []byte(s)) }

func le32(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }

func uleb(v uint32) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func sleb(v int64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
