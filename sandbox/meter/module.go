package meter

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Section ids of the binary format.
const (
	secCustom    = 0
	secType      = 1
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secCode      = 10
	secData      = 11
	secDataCount = 12
	secTag       = 13
)

// sectionOrder is the position each known section must take in a module
// (custom sections may sit anywhere). Zero marks an unknown id.
var sectionOrder = [...]int{
	secType: 1, secImport: 2, secFunction: 3, secTable: 4, secMemory: 5, secTag: 6,
	secGlobal: 7, secExport: 8, secStart: 9, secElement: 10, secDataCount: 11,
	secCode: 12, secData: 13,
}

// External kinds of imports and exports.
const (
	kindFunc   = 0
	kindTable  = 1
	kindMemory = 2
	kindGlobal = 3
	kindTag    = 4
)

// Value types.
const (
	typeI32       = 0x7f
	typeI64       = 0x7e
	typeF32       = 0x7d
	typeF64       = 0x7c
	typeV128      = 0x7b
	typeFuncref   = 0x70
	typeExternref = 0x6f
)

// funcType is a function signature, as the raw value-type bytes of the module.
type funcType struct {
	params, results []byte
}

// The globals the pass adds after the input's, by their offset from the
// first.
const (
	globalFuel        = iota // the fuel counter (GlobalExport)
	globalStack              // the stack estimate (code.go, enterStack)
	globalPrice              // the surcharge per memory access (PriceExport)
	globalCallPrice          // the surcharge per call (CallPriceExport)
	globalFunctions          // FunctionsExport
	globalTablePages         // TablePagesExport
	globalBranchPrice        // the surcharge per branch (BranchPriceExport)
	globalCodeBytes          // CodeBytesExport
	globalSurcharges         // the first of Surcharges, in their order
)

// surchargeGlobalBytes is the size of a Surcharge's global in the global
// section: its type, mutability, i64.const, a padded value and end.
const surchargeGlobalBytes = 3 + 10 + 1

// rewriter carries what one pass over the module has learned so far and
// builds the instrumented module as it goes. Every section is read before the
// sections that depend on it (the binary format fixes the order), so one pass
// suffices.
type rewriter struct {
	out []byte

	types       []funcType
	funcs       []uint32 // type index of every function, imports first
	funcImports uint32   // the new import takes this index; later functions shift up by one
	globals     uint32   // globals of the input; the fuel counter takes this index
	memories    int

	exportsStart, exportsMemory                  bool
	doneType, doneImport, doneGlobal, doneExport bool
	lastOrder                                    int

	refillType uint32 // type index of (i64 i64) -> (i64), appended to the type section

	doneFunction, doneCode bool
	doneNames              bool   // a name section was seen
	allLocals              uint64 // locals of the functions so far, parameters included
	// The cost of instantiation, charged by starting the counter below
	// zero: the counter's initial value sits at initAt in out, padded to a
	// fixed width, and is written once the data section is known.
	initAt                        int
	memPages, tableElems, dataLen uint64
	dataCount                     bool // a data count section was seen
	// The tables' size for the price of a memory access (cost model 5):
	// what they can grow to if the code ever grows one (growsTables), else
	// their initial size; written at tablePagesAt, like initAt, once the
	// code has been read.
	tableMax     uint64
	growsTables  bool
	tablePagesAt int
	// callUnits is 1 if calls pay a surcharge at some point (CallPrice of
	// the module's functions, at the dear prices), 0 if they never do: then
	// the code to subtract it is left out. branchUnits likewise for
	// branches, by the code section's size, written at codeBytesAt.
	callUnits, branchUnits     int64
	codeBytes                  uint64
	branchPriceAt, codeBytesAt int
	surchargesAt               int // the first Surcharge's initial value, surchargeGlobalBytes apart
	body                       bodyRewriter
}

// instrument reads the whole module and returns the instrumented one and
// the cost of instantiating it.
func instrument(wasm []byte) ([]byte, int64, error) {
	m := &rewriter{out: make([]byte, 0, len(wasm)+len(wasm)/4+64)}
	m.out = append(m.out, wasm[:8]...)
	r := &reader{b: wasm, pos: 8}
	for !r.done() && r.err == nil {
		id := r.byte()
		size := r.u32()
		start := r.pos
		content := r.bytes(int(size))
		if r.err != nil {
			break
		}
		sr := &reader{b: content, base: start}
		m.section(id, sr)
		if sr.err != nil {
			return nil, 0, sr.err
		}
		if sr.pos != len(sr.b) {
			sr.fail("section %d has %d bytes left over after its contents", id, len(sr.b)-sr.pos)
			return nil, 0, sr.err
		}
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	// Sections the pass needs but the input lacks.
	m.ensure(len(sectionOrder) + 1)
	cost := m.memPages*PagePrice + m.tableElems*TableElementPrice + m.dataLen/BulkBytesPerUnit
	putPaddedS64(m.out[m.initAt:m.initAt+10], -int64(cost))
	tables := m.tableElems
	if m.growsTables {
		tables = m.tableMax
	}
	putPaddedS64(m.out[m.tablePagesAt:m.tablePagesAt+10], int64(tables*TableElementBytes/PageSize))
	putPaddedS64(m.out[m.branchPriceAt:m.branchPriceAt+10], BranchPrice(m.codeBytes, true))
	putPaddedS64(m.out[m.codeBytesAt:m.codeBytesAt+10], int64(m.codeBytes))
	// The surcharges start at the start-up prices, as the prices do.
	functions := uint64(len(m.funcs)) - uint64(m.funcImports)
	for i, sc := range Surcharges {
		v := sc.Value(AccessPrice(m.memPages, true), CallPrice(functions, true), BranchPrice(m.codeBytes, true))
		at := m.surchargesAt + i*surchargeGlobalBytes
		putPaddedS64(m.out[at:at+10], v)
	}
	if !m.exportsStart {
		return nil, 0, refusal(`the module does not export a function named "_start": a bot must be a WASI command (Go: GOOS=wasip1 GOARCH=wasm go build; C: clang --target=wasm32-wasi; Rust: a bin crate for wasm32-wasi)`)
	}
	if !m.exportsMemory {
		return nil, 0, refusal(`the module does not export its linear memory as "memory", which WASI needs; do not build with an imported memory`)
	}
	return m.out, int64(cost), nil
}

// ensure writes the sections the instrumented module needs and the input has
// not had yet, for every one that must come before a section of the given order.
func (m *rewriter) ensure(order int) {
	empty := func() *reader { return &reader{b: []byte{0}} } // a section with no entries
	if !m.doneType && order > sectionOrder[secType] {
		m.typeSection(empty())
	}
	if !m.doneImport && order > sectionOrder[secImport] {
		m.importSection(empty())
	}
	if !m.doneGlobal && order > sectionOrder[secGlobal] {
		m.globalSection(empty())
	}
	if !m.doneExport && order > sectionOrder[secExport] {
		m.exportSection(empty())
	}
	if m.doneFunction && !m.doneCode && order > sectionOrder[secCode] {
		m.codeSection(empty())
	}
}

// section handles one section of the input.
func (m *rewriter) section(id byte, r *reader) {
	if id == secCustom {
		m.customSection(r)
		return
	}
	if int(id) >= len(sectionOrder) || sectionOrder[id] == 0 {
		r.fail("unknown section id %d", id)
		return
	}
	order := sectionOrder[id]
	if order <= m.lastOrder {
		r.fail("section %d is out of order or repeated", id)
		return
	}
	m.lastOrder = order
	m.ensure(order)
	switch id {
	case secType:
		m.typeSection(r)
	case secImport:
		m.importSection(r)
	case secFunction:
		m.functionSection(r)
	case secTable:
		m.tableSection(r)
	case secMemory:
		m.memorySection(r)
	case secTag:
		r.refuse("%s", unsupported("exception handling", "a tag section").Msg)
	case secGlobal:
		m.globalSection(r)
	case secExport:
		m.exportSection(r)
	case secStart:
		idx := m.funcIndex(r)
		m.emit(secStart, appendU32(nil, idx))
	case secElement:
		m.elementSection(r)
	case secDataCount:
		if n := r.u32(); n > MaxDataSegments {
			overLimit(r, "the declared number of data segments", uint64(n), MaxDataSegments)
		}
		m.dataCount = true
		m.emit(id, r.b)
	case secCode:
		m.codeSection(r)
	case secData:
		if n := r.count(); n > MaxDataSegments {
			overLimit(r, "the number of data segments", uint64(n), MaxDataSegments)
			return
		}
		r.pos = len(r.b)             // nothing in it refers to functions
		m.dataLen = uint64(len(r.b)) // instantiation's price: the segments as given
		if !m.dataCount {
			// Without a data count section no instruction can name a
			// segment (memory.init and data.drop need one), so segments
			// may be joined (data.go).
			if joined, ok := joinData(r.b); ok {
				m.emit(id, joined)
				return
			}
		}
		m.emit(id, r.b)
	}
}

// emit appends one section to the output.
func (m *rewriter) emit(id byte, content []byte) {
	m.out = append(m.out, id)
	m.out = appendU32(m.out, uint32(len(content)))
	m.out = append(m.out, content...)
}

func (m *rewriter) customSection(r *reader) {
	name := r.name()
	if r.err != nil {
		return
	}
	// Only the first name section is kept, and of it only what stack
	// traces use (names.go): wazero decodes a name section into maps it
	// allocates by the counts the section declares, 12 bytes of host memory
	// and more for every 2 bytes of input, and keeps them with the compiled
	// module. Every other custom section is dropped: wazero does not use
	// them, and 10 million empty ones cost seconds to copy and decode.
	// Debug info, for one, points at code offsets the pass moves.
	if name == "name" && !m.doneNames && m.lastOrder >= sectionOrder[secCode] {
		// Where it belongs, after the code, the function indices are known;
		// a name section anywhere else is dropped.
		m.doneNames = true
		if names, ok := shiftNames(r.b[r.pos:], m.funcImports, uint32(len(m.funcs))); ok {
			m.emit(secCustom, append(appendName(nil, "name"), names...))
		}
	}
	r.pos = len(r.b)
}

func (m *rewriter) typeSection(r *reader) {
	m.doneType = true
	n := r.count()
	if n > MaxTypes {
		overLimit(r, "the number of function types", uint64(n), MaxTypes)
		return
	}
	values := 0
	for i := 0; i < n && r.err == nil; i++ {
		switch form := r.byte(); form {
		case 0x60:
		case 0x4e, 0x4f, 0x50, 0x5e, 0x5f:
			r.refuse("%s", unsupported("garbage collection (GC)", "struct, array or recursive types").Msg)
			return
		default:
			r.fail("unknown type form 0x%02x", form)
			return
		}
		var t funcType
		t.params = m.valueTypes(r)
		t.results = m.valueTypes(r)
		m.types = append(m.types, t)
		if k := max(len(t.params), len(t.results)); k > MaxTypeValues {
			overLimit(r, fmt.Sprintf("the number of parameters or results of function type %d", i), uint64(k), MaxTypeValues)
			return
		}
		values += len(t.params) + len(t.results)
		if values > MaxAllTypeValues {
			overLimit(r, "the number of parameters and results of all function types together", uint64(values), MaxAllTypeValues)
			return
		}
	}
	m.refillType = uint32(len(m.types))
	c := appendU32(nil, uint32(len(m.types)+1))
	c = append(c, r.b[lebLen(r.b):r.pos]...)
	c = append(c, 0x60, 2, typeI64, typeI64, 1, typeI64)
	m.emit(secType, c)
}

// lebLen is the length of the LEB128 number at the start of b.
func lebLen(b []byte) int {
	for i, c := range b {
		if c < 0x80 {
			return i + 1
		}
	}
	return len(b)
}

// valueTypes reads a vector of value types and returns its raw bytes.
func (m *rewriter) valueTypes(r *reader) []byte {
	n := r.count()
	ts := r.bytes(n)
	for _, t := range ts {
		m.checkValueType(r, t)
	}
	return ts
}

func (m *rewriter) checkValueType(r *reader, t byte) {
	switch t {
	case typeI32, typeI64, typeF32, typeF64, typeV128, typeFuncref, typeExternref:
	case 0x63, 0x64, 0x6e, 0x6d, 0x6c, 0x6b, 0x6a, 0x72, 0x71, 0x73, 0x74:
		r.refuse("%s", unsupported("typed function references or garbage collection", "reference types other than funcref and externref").Msg)
	case 0x69:
		r.refuse("%s", unsupported("exception handling", "the exnref type").Msg)
	default:
		r.fail("unknown value type 0x%02x", t)
	}
}

func (m *rewriter) importSection(r *reader) {
	m.doneImport = true
	n := r.count()
	if n > MaxImports {
		overLimit(r, "the number of imports", uint64(n), MaxImports)
		return
	}
	for i := 0; i < n && r.err == nil; i++ {
		mod, name := r.name(), r.name()
		kind := r.byte()
		if r.err != nil {
			return
		}
		what := quoteImport(mod, name)
		switch mod {
		case wasiModule, arenaModule:
		case ImportModule:
			r.refuse(`import %s is not allowed: the module name %q is reserved for the fuel meter`, what, ImportModule)
			return
		default:
			r.refuse(`import %s is not allowed: a bot may import only from %q and %q`, what, wasiModule, arenaModule)
			return
		}
		switch kind {
		case kindFunc:
			t := r.u32()
			if int(t) >= len(m.types) {
				r.fail("import %s uses type %d, which does not exist", what, t)
				return
			}
			if mod == arenaModule {
				if name != fuelLeft {
					r.refuse(`import %s is not allowed: the only function "arena" offers is %q, of type () -> i64`, what, fuelLeft)
					return
				}
				if ft := m.types[t]; len(ft.params) != 0 || string(ft.results) != string([]byte{typeI64}) {
					r.refuse(`import %s has type %s, but it must be () -> i64`, what, ft)
					return
				}
			}
			m.funcs = append(m.funcs, t)
			m.funcImports++
		case kindTag:
			r.refuse("%s", unsupported("exception handling", "an imported tag").Msg)
			return
		case kindTable, kindMemory, kindGlobal:
			r.refuse(`import %s is not allowed: a bot may import only functions, and only from %q and %q`, what, wasiModule, arenaModule)
			return
		default:
			r.fail("unknown import kind %d", kind)
			return
		}
	}
	c := appendU32(nil, uint32(n+1))
	c = append(c, r.b[lebLen(r.b):r.pos]...)
	c = appendName(c, ImportModule)
	c = appendName(c, ImportName)
	c = append(c, kindFunc)
	c = appendU32(c, m.refillType)
	m.emit(secImport, c)
}

func quoteImport(mod, name string) string {
	if !utf8.ValidString(mod) || !utf8.ValidString(name) {
		return "with a name that is not valid UTF-8"
	}
	return QuoteName(mod) + "." + QuoteName(name)
}

func (t funcType) String() string {
	return "(" + typeNames(t.params) + ") -> " + typeNames(t.results)
}

var typeName = map[byte]string{
	typeI32: "i32", typeI64: "i64", typeF32: "f32", typeF64: "f64",
	typeV128: "v128", typeFuncref: "funcref", typeExternref: "externref",
}

func typeNames(ts []byte) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = typeName[t]
	}
	if len(names) == 1 {
		return names[0]
	}
	return "(" + strings.Join(names, ", ") + ")"
}

func (m *rewriter) functionSection(r *reader) {
	m.doneFunction = true
	n := r.count()
	if total := uint64(len(m.funcs)) + uint64(n); total > MaxFunctions {
		overLimit(r, "the number of functions", total, MaxFunctions)
		return
	}
	for i := 0; i < n && r.err == nil; i++ {
		t := r.u32()
		if int(t) >= len(m.types) {
			r.fail("function %d uses type %d, which does not exist", len(m.funcs), t)
			return
		}
		m.funcs = append(m.funcs, t)
	}
	// One more function: the out-of-line part of the tank check (checkBody).
	c := appendU32(nil, uint32(n+1))
	c = append(c, r.b[lebLen(r.b):r.pos]...)
	m.emit(secFunction, appendU32(c, m.refillType))
}

func (m *rewriter) tableSection(r *reader) {
	n := r.count()
	if n > MaxTables {
		overLimit(r, "the number of tables", uint64(n), MaxTables)
		return
	}
	type table struct {
		ref      byte
		min, max uint64
	}
	tables := make([]table, 0, n)
	var sumMin uint64
	for i := 0; i < n && r.err == nil; i++ {
		t := r.byte()
		if t == 0x40 {
			r.refuse("%s", unsupported("typed function references", "a table with an initializer").Msg)
			return
		}
		m.checkValueType(r, t)
		lo, hi, hasMax := m.limits(r, "table")
		if !hasMax {
			hi = 1<<32 - 1
		}
		if hi < lo {
			r.fail("table %d has a maximum size %d below its minimum %d", i, hi, lo)
			return
		}
		sumMin += lo
		m.tableElems += lo
		tables = append(tables, table{t, lo, hi})
	}
	if r.err != nil {
		return
	}
	if sumMin > MaxTableElements {
		overLimit(r, "the initial size of the tables (elements, all tables together)", sumMin, MaxTableElements)
		return
	}
	// Every table gets a maximum, so that growing them all cannot take more
	// than MaxTableElements together: a table may grow by an equal share of
	// what the initial sizes leave. Growing past it fails (table.grow
	// returns -1), as it would past a maximum the module declared.
	share := (MaxTableElements - sumMin) / uint64(max(len(tables), 1))
	c := appendU32(nil, uint32(len(tables)))
	for _, t := range tables {
		c = append(c, t.ref, 1)
		c = appendU32(c, uint32(t.min))
		c = appendU32(c, uint32(min(t.max, t.min+share)))
		m.tableMax += min(t.max, t.min+share)
	}
	m.emit(secTable, c)
}

func (m *rewriter) memorySection(r *reader) {
	n := r.count()
	for i := 0; i < n && r.err == nil; i++ {
		m.memories++
		if m.memories > 1 {
			r.refuse("%s", unsupported("multiple memories", "more than one linear memory").Msg)
			return
		}
		lo, _, _ := m.limits(r, "memory")
		if lo > MaxMemoryPages {
			overLimit(r, "the initial size of the linear memory (64 KiB pages)", lo, MaxMemoryPages)
			return
		}
		m.memPages = lo
	}
	m.emit(secMemory, r.b)
}

// limits reads the limits of a table or memory, refusing shared memories and
// 64-bit addressing.
func (m *rewriter) limits(r *reader, what string) (lo, hi uint64, hasMax bool) {
	flags := r.byte()
	switch {
	case flags&0x02 != 0:
		r.refuse("%s", unsupported("threads", "a shared "+what).Msg)
		return
	case flags&0x04 != 0:
		r.refuse("%s", unsupported("memory64", "a 64-bit "+what).Msg)
		return
	case flags > 1:
		r.fail("unknown %s limits flags 0x%02x", what, flags)
		return
	}
	lo = uint64(r.u32())
	if flags == 1 {
		hi, hasMax = uint64(r.u32()), true
	}
	return lo, hi, hasMax
}

func (m *rewriter) globalSection(r *reader) {
	m.doneGlobal = true
	n := r.count()
	if n > MaxGlobals {
		overLimit(r, "the number of globals", uint64(n), MaxGlobals)
		return
	}
	var c []byte
	c = appendU32(c, uint32(n+len(reservedExports)+1))
	for i := 0; i < n && r.err == nil; i++ {
		t := r.byte()
		m.checkValueType(r, t)
		mut := r.byte()
		if mut > 1 {
			r.fail("global mutability flag %d", mut)
			return
		}
		c = append(c, t, mut)
		c = m.constExpr(r, c)
		m.globals++
	}
	// The fuel counter: (global (mut i64) (i64.const -instantiation)),
	// written once the data section is known.
	c = append(c, typeI64, 1, 0x42)
	initAt := len(c)
	c = append(c, make([]byte, 10)...)
	c = append(c, 0x0b)
	// The stack estimate (code.go, enterStack): (global (mut i32) (i32.const 0)).
	c = append(c, typeI32, 1, 0x41, 0, 0x0b)
	// The surcharges per memory access and per call, which the host sets
	// at every call of refill (code.go, afterGrow); they start at the
	// start-up prices: (global (mut i64) (i64.const AccessPrice(pages, true)))
	// and (global (mut i64) (i64.const CallPrice(functions, true))).
	functions := uint64(len(m.funcs)) - uint64(m.funcImports)
	c = appendS64(append(c, typeI64, 1, opcodeI64Const), AccessPrice(m.memPages, true))
	c = append(c, 0x0b)
	c = appendS64(append(c, typeI64, 1, opcodeI64Const), CallPrice(functions, true))
	if CallPrice(functions, true) > 0 {
		m.callUnits = 1
	}
	c = append(c, 0x0b)
	// What the host needs to set them: (global i64 (i64.const functions))
	// and (global i64 (i64.const table pages)), the latter written once
	// the code is known.
	c = appendS64(append(c, typeI64, 0, opcodeI64Const), int64(functions))
	c = append(c, 0x0b, typeI64, 0, opcodeI64Const)
	tablePagesAt := len(c)
	c = append(c, make([]byte, 10)...)
	c = append(c, 0x0b)
	// The surcharge per branch, and the code's size it follows (written
	// once the code section is known): (global (mut i64) (i64.const
	// BranchPrice(code, true))) and (global i64 (i64.const code)).
	c = append(c, typeI64, 1, opcodeI64Const)
	branchPriceAt := len(c)
	c = append(c, make([]byte, 10)...)
	c = append(c, 0x0b, typeI64, 0, opcodeI64Const)
	codeBytesAt := len(c)
	c = append(c, make([]byte, 10)...)
	c = append(c, 0x0b)
	// The Surcharges, written once the code is known as the branch price
	// is: (global (mut i64) (i64.const value)) each.
	surchargesAt := len(c) + 3
	for range Surcharges {
		c = append(c, typeI64, 1, opcodeI64Const)
		c = append(c, make([]byte, 10)...)
		c = append(c, 0x0b)
	}
	m.emit(secGlobal, c)
	m.surchargesAt = len(m.out) - len(c) + surchargesAt
	m.initAt = len(m.out) - len(c) + initAt
	m.tablePagesAt = len(m.out) - len(c) + tablePagesAt
	m.branchPriceAt = len(m.out) - len(c) + branchPriceAt
	m.codeBytesAt = len(m.out) - len(c) + codeBytesAt
}

func (m *rewriter) exportSection(r *reader) {
	m.doneExport = true
	n := r.count()
	if n > MaxExports {
		overLimit(r, "the number of exports", uint64(n), MaxExports)
		return
	}
	var c []byte
	c = appendU32(c, uint32(n+len(reservedExports)))
	for i := 0; i < n && r.err == nil; i++ {
		name := r.name()
		kind := r.byte()
		if r.err != nil {
			return
		}
		if slices.Contains(reservedExports, name) {
			r.refuse("export %s is not allowed: the name is reserved for the fuel meter; rename or drop the export", QuoteName(name))
			return
		}
		c = appendName(c, name)
		c = append(c, kind)
		switch kind {
		case kindFunc:
			start := r.pos
			c = appendU32(c, m.funcIndex(r))
			if name == "_start" && r.err == nil {
				r.pos = start
				if t := m.types[m.funcs[r.u32()]]; len(t.params)+len(t.results) != 0 {
					r.refuse(`the exported function "_start" has type %s, but it must be () -> (): a bot is a WASI command`, t)
				}
				m.exportsStart = true
			}
		case kindGlobal:
			if g := r.u32(); g >= m.globals {
				r.fail("export %s names global %d, which does not exist", QuoteName(name), g)
			} else {
				c = appendU32(c, g)
			}
		case kindMemory:
			c = appendU32(c, r.u32())
			if name == "memory" {
				m.exportsMemory = true
			}
		case kindTable:
			c = appendU32(c, r.u32())
		case kindTag:
			r.refuse("%s", unsupported("exception handling", "an exported tag").Msg)
		default:
			r.fail("unknown export kind %d", kind)
		}
	}
	for _, e := range []struct {
		name   string
		global uint32
	}{
		{GlobalExport, globalFuel}, {PriceExport, globalPrice}, {CallPriceExport, globalCallPrice},
		{FunctionsExport, globalFunctions}, {TablePagesExport, globalTablePages},
		{BranchPriceExport, globalBranchPrice}, {CodeBytesExport, globalCodeBytes},
	} {
		c = appendName(c, e.name)
		c = append(c, kindGlobal)
		c = appendU32(c, m.globals+e.global)
	}
	for i, sc := range Surcharges {
		c = appendName(c, sc.Name)
		c = append(c, kindGlobal)
		c = appendU32(c, m.globals+globalSurcharges+uint32(i))
	}
	m.emit(secExport, c)
}

// funcIndex reads a function index and returns it shifted past the new import.
func (m *rewriter) funcIndex(r *reader) uint32 {
	idx := r.u32()
	if int(idx) >= len(m.funcs) {
		r.fail("function index %d does not exist", idx)
		return 0
	}
	return shiftIndex(idx, m.funcImports)
}

func (m *rewriter) elementSection(r *reader) {
	n := r.count()
	if n > MaxElemSegments {
		overLimit(r, "the number of element segments", uint64(n), MaxElemSegments)
		return
	}
	var elements uint64
	var c []byte
	c = appendU32(c, uint32(n))
	for i := 0; i < n && r.err == nil; i++ {
		flags := r.u32()
		c = appendU32(c, flags)
		if flags > 7 {
			r.fail("unknown element segment flags %d", flags)
			return
		}
		active, explicitTable, exprs := flags&1 == 0, flags&2 != 0, flags&4 != 0
		if active && explicitTable {
			c = appendU32(c, r.u32())
		}
		if active {
			c = m.constExpr(r, c)
		}
		if !active || explicitTable {
			kind := r.byte() // elemkind 0x00 (funcref) or a reference type
			c = append(c, kind)
		}
		k := r.count()
		if elements += uint64(k); elements > MaxSegmentElements {
			overLimit(r, "the number of elements in element segments", elements, MaxSegmentElements)
			return
		}
		c = appendU32(c, uint32(k))
		for j := 0; j < k && r.err == nil; j++ {
			if exprs {
				c = m.constExpr(r, c)
			} else {
				c = appendU32(c, m.funcIndex(r))
			}
		}
	}
	m.emit(secElement, c)
}

// constExpr copies a constant expression, shifting function indices.
func (m *rewriter) constExpr(r *reader, c []byte) []byte {
	for r.err == nil {
		start := r.pos
		op := r.byte()
		switch op {
		case 0x0b: // end
			return append(c, op)
		case 0x41: // i32.const
			r.signed(32)
		case 0x42: // i64.const
			r.signed(64)
		case 0x43: // f32.const
			r.bytes(4)
		case 0x44: // f64.const
			r.bytes(8)
		case 0x23: // global.get
			if g := r.u32(); g >= m.globals {
				r.fail("constant expression reads global %d, which does not exist", g)
			}
		case 0xd0: // ref.null
			m.checkValueType(r, r.byte())
		case 0xd2: // ref.func
			c = append(c, op)
			c = appendU32(c, m.funcIndex(r))
			continue
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // extended constants: add, sub, mul
		case 0xfd: // v128.const
			if r.u32() != 12 {
				r.fail("instruction not allowed in a constant expression")
			}
			r.bytes(16)
		default:
			r.fail("instruction 0x%02x not allowed in a constant expression", op)
		}
		if r.err == nil {
			c = append(c, r.b[start:r.pos]...)
		}
	}
	return c
}
