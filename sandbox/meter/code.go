package meter

import "fmt"

// Opcode classes: how the pass treats each one-byte opcode.
const (
	opInvalid   = iota
	opPlain     // no immediates, one unit
	opFree      // nop: no immediates, free
	opMemarg    // loads and stores
	opLocal     // local.get/set/tee
	opGlobal    // global.get/set
	opTable     // table.get/set: a table index
	opMemIndex  // memory.size/grow: a memory index
	opI32Const  //
	opI64Const  //
	opF32Const  //
	opF64Const  //
	opSelectT   // select with types
	opRefNull   //
	opRefFunc   //
	opBlock     // free, and not a branch target at its start
	opLoop      // free; starts a segment with a check
	opIf        // one unit; ends a segment
	opElse      // free; starts a segment
	opEnd       // free; starts a segment
	opBr        // br, br_if: one unit; end a segment
	opBrTable   //
	opEndsFlow  // return, unreachable: one unit; end a segment
	opCall      // call, return_call: one unit; end a segment; shifted index
	opCallIndir // call_indirect, return_call_indirect
	opMisc      // 0xfc prefix
	opSIMD      // 0xfd prefix
	opThreads   // 0xfe prefix: atomics
	opException // exception handling
	opTypedRef  // typed function references
	opGC        // garbage collection
)

var opClass = func() (c [256]byte) {
	set := func(class byte, ops ...byte) {
		for _, op := range ops {
			c[op] = class
		}
	}
	span := func(class byte, from, to byte) {
		for op := int(from); op <= int(to); op++ {
			c[op] = class
		}
	}
	set(opEndsFlow, 0x00, 0x0f)
	set(opFree, 0x01)
	set(opBlock, 0x02)
	set(opLoop, 0x03)
	set(opIf, 0x04)
	set(opElse, 0x05)
	set(opException, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x18, 0x19, 0x1f)
	set(opEnd, 0x0b)
	set(opBr, 0x0c, 0x0d)
	set(opBrTable, 0x0e)
	set(opCall, 0x10, 0x12)
	set(opCallIndir, 0x11, 0x13)
	set(opTypedRef, 0x14, 0x15, 0xd4, 0xd5, 0xd6)
	set(opPlain, 0x1a, 0x1b, 0xd1)
	set(opSelectT, 0x1c)
	span(opLocal, 0x20, 0x22)
	span(opGlobal, 0x23, 0x24)
	span(opTable, 0x25, 0x26)
	span(opMemarg, 0x28, 0x3e)
	span(opMemIndex, 0x3f, 0x40)
	set(opI32Const, 0x41)
	set(opI64Const, 0x42)
	set(opF32Const, 0x43)
	set(opF64Const, 0x44)
	span(opPlain, 0x45, 0xc4)
	set(opRefNull, 0xd0)
	set(opRefFunc, 0xd2)
	set(opGC, 0xd3, 0xfb)
	set(opMisc, 0xfc)
	set(opSIMD, 0xfd)
	set(opThreads, 0xfe)
	return c
}()

// makesValue tells which one-byte opcodes may make a new value that
// wazero's compiler keeps: not control, calls (their results are counted by
// type), drop, locals (local.get reads a value made elsewhere, local.set
// names one), global.set, table.set and stores.
var makesValue = func() (v [256]bool) {
	for op := range v {
		v[op] = true
	}
	for _, op := range []int{0x1a, 0x20, 0x21, 0x22, 0x24, 0x26} {
		v[op] = false
	}
	// Nor constants: wazero makes them again where they are used rather
	// than keep them (the first red team's 100,000 constants on the
	// operand stack across a recursive call took no host stack).
	for op := 0x41; op <= 0x44; op++ {
		v[op] = false
	}
	for op := 0x00; op <= 0x13; op++ {
		v[op] = false
	}
	for op := 0x36; op <= 0x3e; op++ {
		v[op] = false
	}
	return v
}()

// Opcodes the pass emits.
const (
	opcodeIf           = 0x04
	opcodeEnd          = 0x0b
	opcodeReturn       = 0x0f
	opcodeCall         = 0x10
	opcodeCallIndirect = 0x11
	opcodeLocalSet     = 0x21
	opcodeLocalGet     = 0x20
	opcodeLocalTee     = 0x22
	opcodeGlobalGet    = 0x23
	opcodeGlobalSet    = 0x24
	opcodeI64Const     = 0x42
	opcodeI64LtS       = 0x53
	opcodeI64Sub       = 0x7d
	opcodeI64ShrU      = 0x88
	opcodeI64ExtendU   = 0xad
	opcodeI64Mul       = 0x7e
	opcodeI32Const     = 0x41
	opcodeI32LtU       = 0x49
	opcodeSelect       = 0x1b
	opcodeI64Add       = 0x7c
	opcodeRefFunc      = 0xd2
	opcodeF32Sqrt      = 0x91
	opcodeF64Sqrt      = 0x9f
	blockTypeEmpty     = 0x40
	log2BulkBytesUnit  = 3 // BulkBytesPerUnit == 1 << 3
)

// maxMeteredCode bounds the instrumented code section, which is what
// wazero compiles, so that a module of nothing but tiny segments cannot make
// the compiler's input many times the limit on the code section.
const maxMeteredCode = 4 * MaxCodeSection

// checkEvery bounds the units that can be charged, on any path, between two
// checks of the tank; every check asks for that much in reserve (Reserve).
const checkEvery = Reserve

// frame is an open block, loop or if, for the placement of checks.
type frame struct {
	loop, isIf, hasElse bool
	targeted            bool   // a branch goes to it: its start (loop) or end joins paths
	arity               uint64 // the slots of the values a branch to it passes
	start               int64  // acc where an if began (the path around it)
	end                 int64  // the most acc of the paths that reach its end
}

// checkKind says which tank check starts a segment.
type checkKind uint8

const (
	noCheck    checkKind = iota
	entryCheck           // at function entry
	loopCheck            // at a loop header; also stores the counter in the global
)

// bodyRewriter instruments one function body at a time; its buffers are
// reused from one function to the next.
//
// The body is cut into segments: straight-line runs that, once entered, run
// to their end unless they trap. A segment's instructions collect in seg while
// they are counted; when it ends, its charge goes out first, then (at function
// entry and loop headers) the check, then the instructions. Input bytes that
// need no change are copied in bulk: raw marks the first one not copied yet.
//
// Inside a function the counter lives in a local, which the compiler keeps
// in a register: charging the global directly chains a load and a store
// through memory for every segment (BenchmarkGoBotRun: 1.3-1.5 times the
// plain CPU time with the global, 1.06-1.15 with the local). The local is loaded from the global at entry and after every call,
// and stored back before every call (host functions see the exact count),
// at loop headers (so a trap leaves the global behind by at most the code
// since the last loop header or call) and wherever the function returns.
type bodyRewriter struct {
	m      *rewriter
	r      reader
	code   []byte // the function's instrumented code so far
	seg    []byte // the current segment's instructions
	raw    int
	count  int64 // units charged for the current segment
	access int64 // memory accesses among them, charged AccessPrice more each
	called int64 // calls among them (one at most), charged CallPrice more each
	// branched counts the branches among them (one at most), charged
	// BranchPrice more each.
	branched int64
	check    checkKind // the check that starts the current segment
	depth    int       // open blocks, the function's own included

	// Checks are placed so that at most checkEvery units run between one
	// and the next on any path (see endSegment). acc is the most units
	// charged since the last check on any path reaching this point; frames
	// follow the open blocks to merge acc where paths join.
	acc     int64
	frames  []frame
	labels  []uint32
	must    bool // the current segment must be checked
	checked bool // the current segment has a check inside (chargeCount)
	locals  uint64
	fuel    uint32 // the local holding the counter (i64)
	tmp     uint32 // the scratch local of bulk memory charges (i32)
	cost    uint32 // the price of a bulk operation, charged at run time (i64)
	stack   uint32 // this call's level of the stack estimate (i32)
	// constVal is the value of the last i32.const read, which ends at
	// constEnd: a bulk operation right after it has that size.
	constVal int64
	constEnd int
	calls    bool   // the function calls another
	head     []byte // scratch for the function's start
	room     int    // how large the function's code may grow

	// callValues is the most parameters and results of the calls the
	// function makes: wazero keeps room for them in the caller's frame
	// (a call returning 1,000 values takes some 20 KB of its stack), so
	// they count in the frame's estimate. (A tail call takes off the frame
	// without them: the estimate only grows, and wazero does not run tail
	// calls anyway.)
	callValues uint64
	// values bounds the values wazero's compiler can make of the function
	// (see frameValues); slots counts its locals, a v128 twice; joins counts
	// the places where paths meet, each of which may take a new value of
	// every local assigned in the function (assigned, with a v128 twice if
	// the function has any). assignedIn[l] is fn+1 once local l of function
	// fn has been counted.
	values, slots, joins, assigned uint64
	assignedIn                     []uint32
	fn                             uint32
}

// codeSection instruments every function body.
func (m *rewriter) codeSection(r *reader) {
	m.doneCode = true
	if len(r.b) > MaxCodeSection {
		overLimit(r, "the size of the code section (bytes)", uint64(len(r.b)), MaxCodeSection)
		return
	}
	m.codeBytes = uint64(len(r.b))
	if BranchPrice(m.codeBytes, true) > 0 {
		m.branchUnits = 1
	}
	n := r.count()
	if defined := len(m.funcs) - int(m.funcImports); n != defined {
		r.fail("the code section has %d function bodies for %d functions", n, defined)
		return
	}
	c := make([]byte, 0, len(r.b)+len(r.b)/2)
	c = appendU32(c, uint32(n+1))
	b := &m.body
	b.m = m
	for i := 0; i < n && r.err == nil; i++ {
		size := r.u32()
		if size > MaxFunctionBody {
			overLimit(r, fmt.Sprintf("the size of the body of function %d (bytes)", m.funcImports+uint32(i)), uint64(size), MaxFunctionBody)
			return
		}
		start := r.pos
		body := r.bytes(int(size))
		if r.err != nil {
			return
		}
		b.room = maxMeteredCode - len(c)
		c = b.function(m.funcImports+uint32(i), body, r.base+start, c)
		if b.r.err != nil {
			r.err = b.r.err
			return
		}
	}
	m.emit(secCode, append(c, m.checkBody()...))
}

// function instruments the body of function fn and appends it to c.
func (b *bodyRewriter) function(fn uint32, body []byte, base int, c []byte) []byte {
	m := b.m
	r := &b.r
	*r = reader{b: body, base: base}
	groups := r.count()
	params := m.types[m.funcs[fn]].params
	b.locals, b.slots = uint64(len(params)), valueSlots(params)
	for g := 0; g < groups && r.err == nil; g++ {
		n, t := uint64(r.u32()), r.byte()
		m.checkValueType(r, t)
		b.locals += n
		b.slots += n * valueSlots([]byte{t})
	}
	if b.locals > MaxLocals {
		overLimit(r, fmt.Sprintf("the number of locals of function %d (parameters included)", fn), b.locals, MaxLocals)
	}
	if m.allLocals += b.locals; m.allLocals > MaxAllLocals && r.err == nil {
		overLimit(r, "the number of locals of all functions together (parameters included)", m.allLocals, MaxAllLocals)
	}
	localsEnd := r.pos
	b.fuel, b.tmp, b.stack, b.cost = uint32(b.locals), uint32(b.locals+1), uint32(b.locals+2), uint32(b.locals+3)
	b.assigned, b.fn = 0, fn
	if r.err != nil {
		// Over a limit of locals: refused, and the count of assigned
		// locals below must not be made for two billion of them.
		return c
	}
	if uint64(len(b.assignedIn)) < b.locals {
		b.assignedIn = make([]uint32, b.locals)
	}
	// Two passes: the first counts the locals the function assigns (what
	// a join can take, see joinWidth), which the second, whose output is
	// kept, prices at every join.
	var entry int
	for pass := 0; pass < 2 && r.err == nil; pass++ {
		r.pos = localsEnd
		b.code, b.seg = b.code[:0], b.seg[:0]
		b.raw, b.count, b.access, b.called, b.branched, b.check, b.depth = r.pos, 0, 0, 0, 0, entryCheck, 1
		// The entry pays for zeroing the declared locals.
		b.count = int64(b.locals-uint64(len(params))) / LocalsPerUnit
		b.acc, b.must, b.checked, b.constEnd = 0, false, false, -1
		b.frames = append(b.frames[:0], frame{})
		b.code = b.syncIn(b.code)
		entry = len(b.code)
		b.calls, b.callValues = false, 0
		b.values, b.joins = 0, 0
		b.instructions()
	}
	if r.err != nil {
		return c
	}
	// A function that calls nothing adds one frame at most to the stack, so
	// it is left out of the estimate (MaxStackBytes allows for it), and the
	// leaf functions of a search do not pay for it.
	if b.calls {
		b.head = b.enterStack(append(b.head[:0], b.code[:entry]...), FrameBytes(b.frameValues()))
		b.code = append(b.head, b.code[entry:]...)
		b.head = b.code[:0:0]
	}
	// Four more locals: (local $fuel i64) (local $tmp i32) (local $stack i32)
	// (local $cost i64).
	groupBytes := body[lebLen(body):localsEnd]
	c = appendU32(c, uint32(lebSize(uint64(groups+4))+len(groupBytes)+8+len(b.code)))
	c = appendU32(c, uint32(groups+4))
	c = append(c, groupBytes...)
	c = append(c, 1, typeI64, 1, typeI32, 1, typeI32, 1, typeI64)
	return append(c, b.code...)
}

// checkBody is the body of the function every check calls when the counter
// is below Reserve (type (i64 counter, i64 charge) -> i64): it stores the
// counter in the global, asks the host for the next slice (or to be
// stopped), and returns the new counter, also stored in the global. Keeping
// this out of line keeps the check at every segment small.
func (m *rewriter) checkBody() []byte {
	c := []byte{0} // no locals
	c = append(c, opcodeLocalGet, 0, opcodeGlobalSet)
	c = appendU32(c, m.globals)
	c = append(c, opcodeLocalGet, 0, opcodeLocalGet, 1, opcodeCall)
	c = appendU32(c, m.funcImports)
	c = append(c, opcodeLocalTee, 0, opcodeGlobalSet)
	c = appendU32(c, m.globals)
	c = append(c, opcodeLocalGet, 0, opcodeEnd)
	return append(appendU32(nil, uint32(len(c))), c...)
}

// checkFunc is the index of the function of checkBody: after every
// function of the input, in the index space shifted by the new import.
func (m *rewriter) checkFunc() uint32 { return uint32(len(m.funcs)) + 1 }

// appendCheck appends: if fuel < Reserve { fuel = check(fuel, charge) },
// the fuel's value (after the charge) being on the stack already. charge is
// what was just taken (count units, access of them memory accesses, called
// of them calls): on a tank that cannot pay, the host gives it back, since
// the code it paid for does not run. The charge is computed again only on
// that rare path.
func (b *bodyRewriter) appendCheck(c []byte, count, access, called, branched int64) []byte {
	c = append(c, opcodeI64Const)
	c = appendS64(c, Reserve)
	c = append(c, opcodeI64LtS, opcodeIf, blockTypeEmpty, opcodeLocalGet)
	c = appendU32(c, b.fuel)
	if count >= 0 {
		c = b.appendCharge(c, count, access, called, branched)
	} else { // charged at run time: the amount is in the local cost
		c = append(c, opcodeLocalGet)
		c = appendU32(c, b.cost)
	}
	c = append(c, opcodeCall)
	c = appendU32(c, b.m.checkFunc())
	c = append(c, opcodeLocalSet)
	c = appendU32(c, b.fuel)
	return append(c, opcodeEnd)
}

// appendCharge pushes the charge of count units of which access are memory
// accesses and called are calls: count + access * the price global (cost
// model 4) + called * the call price global (cost model 5), for the rare
// paths that need the charge as a value (a check that gives it back, a
// bulk operation); a segment subtracts it with appendSubCharge.
func (b *bodyRewriter) appendCharge(c []byte, count, access, called, branched int64) []byte {
	c = append(c, opcodeI64Const)
	c = appendS64(c, count)
	return b.appendSurcharges(c, access, branched, called, opcodeI64Add)
}

// appendSurcharges applies op (add or subtract) of the surcharges of
// access memory accesses, branched branches and called calls (0 or 1 of
// either) to the value on the stack: one precomputed Surcharge where there
// is one, else each price, multiplied.
func (b *bodyRewriter) appendSurcharges(c []byte, access, branched, called int64, op byte) []byte {
	if i := surchargeIndex(access, branched, called); i >= 0 {
		c = append(c, opcodeGlobalGet)
		c = appendU32(c, b.m.globals+globalSurcharges+uint32(i))
		return append(c, op)
	}
	c = b.appendSurcharge(c, access, globalPrice, op)
	c = b.appendSurcharge(c, branched, globalBranchPrice, op)
	return b.appendSurcharge(c, called, globalCallPrice, op)
}

// appendSurcharge applies op (add or subtract) of n times the price in the
// global at offset price to the value on the stack.
func (b *bodyRewriter) appendSurcharge(c []byte, n int64, price uint32, op byte) []byte {
	if n == 0 {
		return c
	}
	c = append(c, opcodeGlobalGet)
	c = appendU32(c, b.m.globals+price)
	if n > 1 {
		c = append(c, opcodeI64Const)
		c = appendS64(c, n)
		c = append(c, opcodeI64Mul)
	}
	return append(c, op)
}

// appendSubCharge subtracts the current segment's charge from the fuel on
// the stack: fuel - count - access * price, the same figure as subtracting
// count + access * price. In this order wazero's compiler subtracts the
// count as an immediate and the price straight from the counter, where
// adding them first takes a register, a copy and an add more in every
// segment that touches memory: the C search's metering overhead fell from
// 1.21 to 1.19 of its unmetered time (docs/performance.md). The counter's
// chain of dependent instructions grows to two subtractions, which may be
// why the Go search's rose by about as much (within its margin).
func (b *bodyRewriter) appendSubCharge(c []byte) []byte {
	c = append(c, opcodeI64Const)
	c = appendS64(c, b.count)
	c = append(c, opcodeI64Sub)
	return b.appendSurcharges(c, b.access, b.branched, b.called, opcodeI64Sub)
}

// afterGrow follows memory.grow, whose result is on the stack: the host is
// called with the counter (charge 0), whatever it holds, so that it sets
// the price of a memory access for the memory's new size and holds back
// the reserve at that price (the host's Instance.slice), or stops the bot
// there, the grow paid for and nothing after it run. The segment ends
// there.
//
//	local.get fuel; i64.const 0; call check; local.set fuel
func (b *bodyRewriter) afterGrow() {
	if b.r.err != nil {
		return
	}
	b.flush(b.r.pos)
	s := append(b.seg, opcodeLocalGet)
	s = appendU32(s, b.fuel)
	s = append(s, opcodeI64Const, 0, opcodeCall)
	s = appendU32(s, b.m.checkFunc())
	s = append(s, opcodeLocalSet)
	b.seg = appendU32(s, b.fuel)
	b.checked = true
	b.endSegment()
}

// FrameBytes is what a call of a function that can hold that many values
// in its frame (frameValues) is assumed to take of the host's stack: 16
// bytes a value, twice wazero's 8-byte slot, for the temporaries it makes
// of an instruction, and 256 for the registers it saves and the frame's
// links. It is capped past MaxStackBytes: such a frame traps at entry.
func FrameBytes(values uint64) int64 {
	return int64(min(values, MaxStackBytes/16)*16 + 256)
}

// frameValues bounds the values a call of the function can keep in its
// frame on the host's stack. wazero's compiler (wazevo, 1.12) gives every
// value it spills (one live across a call, or one its registers cannot
// hold) a slot of its own for the whole function, slots being never
// shared, so the frame grows with the values the function computes, not
// with its locals: a function keeping 100 values on the operand stack
// across a call took 8 KB a frame where 16 bytes a local counted 144
// (sandbox/wasi_attacks_test.go). Every value the compiler makes comes from an
// instruction's results (one each, counted for every instruction, more for
// calls and blocks), or from a place where paths join, where it may take a
// new value of every local the function assigns (wazero drops those that
// would hold the same value on every path before it gives out slots).
// The bound is loose, but it is what the meter can count while it reads
// the code, and it cannot be beaten by the shape of the code.
func (b *bodyRewriter) frameValues() uint64 {
	return b.values + b.slots + b.assignedSlots()*b.joins + b.callValues
}

// assignedSlots is the slots of the locals the function assigns, a v128
// counting twice (all of them, if the function has any v128 local).
func (b *bodyRewriter) assignedSlots() uint64 {
	if b.slots > b.locals {
		return 2 * b.assigned
	}
	return b.assigned
}

// joinWidth is the values a branch to a block, loop or if of that arity
// moves: its own parameters (a loop) or results, and a new value of every
// local the function assigns. wazero moves them all at every branch, and
// where an argument is one of the target's own values it moves it through
// a temporary of its own (lowerBlockArguments in its compiler), which, past
// the registers, is spilled to a slot of its own: every edge into a join
// counts its width in the frame's values (the fifth red team: 256 br_ifs
// passing 64 v128 locals took 258,817 bytes a frame).
func (b *bodyRewriter) joinWidth(arity uint64) uint64 { return arity + b.assignedSlots() }

// joinUnits is what arriving at a join of that width costs beyond the
// instructions (cost model 5): nothing for what the registers hold, then 1
// unit for every JoinValuesPerUnit values moved, and 6 more for every
// JoinValuesPerUnit past JoinWideValues (the fifth red team: a loop
// passing 1,000 locals back took 0.2 µs of CPU a unit, 10,000 locals 15
// µs; at a third of a unit a value, 3.2 and 11-12.6 ns a unit: a wide
// join's values no longer fit the fastest caches, and cost more each).
func joinUnits(width uint64) int64 {
	return int64(max(width, JoinFreeValues)-JoinFreeValues)/JoinValuesPerUnit +
		6*int64(max(width, JoinWideValues)-JoinWideValues)/JoinValuesPerUnit
}

// assign counts local l as assigned in the function, once.
func (b *bodyRewriter) assign(l uint32) {
	if b.assignedIn[l] != b.fn+1 {
		b.assignedIn[l] = b.fn + 1
		b.assigned++
	}
}

// enterStack adds the function's frame to the stack estimate, kept in a
// global, and traps when it goes past MaxStackBytes: wazero would grow its
// stack to 400 MB before it calls it an overflow, and a deep recursion of
// big frames costs little fuel. The function keeps its own level in a
// local and sets the global back to it after every call, so that every way
// out of a callee (a trap aside, which ends the instance) is accounted for.
//
//	global.get S; i32.const w; i32.add; local.tee stack; global.set S
//	local.get stack; i32.const max; i32.gt_u; if; unreachable; end
func (b *bodyRewriter) enterStack(c []byte, w int64) []byte {
	c = append(c, opcodeGlobalGet)
	c = appendU32(c, b.m.globals+globalStack)
	c = append(c, opcodeI32Const)
	c = appendS64(c, w)
	c = append(c, 0x6a, opcodeLocalTee) // i32.add
	c = appendU32(c, b.stack)
	c = append(c, opcodeGlobalSet)
	c = appendU32(c, b.m.globals+globalStack)
	c = append(c, opcodeLocalGet)
	c = appendU32(c, b.stack)
	c = append(c, opcodeI32Const)
	c = appendS64(c, MaxStackBytes)
	c = append(c, 0x4b, opcodeIf, blockTypeEmpty, 0x00, opcodeEnd) // i32.gt_u; if; unreachable; end
	return c
}

// stackBack sets the stack estimate back to this function's level (after a
// call), or to its caller's (before a tail call, w being the frame).
func (b *bodyRewriter) stackBack(c []byte, w int64) []byte {
	c = append(c, opcodeLocalGet)
	c = appendU32(c, b.stack)
	if w != 0 {
		c = append(c, opcodeI32Const)
		c = appendS64(c, w)
		c = append(c, 0x6b) // i32.sub
	}
	c = append(c, opcodeGlobalSet)
	return appendU32(c, b.m.globals+globalStack)
}

// syncIn loads the counter from the global into the local.
func (b *bodyRewriter) syncIn(c []byte) []byte {
	c = append(c, opcodeGlobalGet)
	c = appendU32(c, b.m.globals)
	c = append(c, opcodeLocalSet)
	return appendU32(c, b.fuel)
}

// syncOut stores the counter from the local into the global.
func (b *bodyRewriter) syncOut(c []byte) []byte {
	c = append(c, opcodeLocalGet)
	c = appendU32(c, b.fuel)
	c = append(c, opcodeGlobalSet)
	return appendU32(c, b.m.globals)
}

// syncOutBefore stores the counter before the instruction at start, which
// has been read but not copied yet.
func (b *bodyRewriter) syncOutBefore(start int) {
	b.flush(start)
	b.seg = b.syncOut(b.seg)
}

func lebSize(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// instructions reads the expression of a body up to its final end.
func (b *bodyRewriter) instructions() {
	m, r := b.m, &b.r
	for r.err == nil {
		if r.done() {
			r.fail("function body ends before its final end")
			return
		}
		start := r.pos
		op := r.b[start]
		r.pos++
		if makesValue[op] {
			b.values++
		}
		switch opClass[op] {
		case opPlain:
			b.count++
			if op == opcodeF32Sqrt || op == opcodeF64Sqrt {
				b.count += SqrtPrice - 1
			}
		case opFree:
		case opMemarg:
			b.count++
			b.access++
			b.memarg()
		case opLocal:
			b.count++
			if l := r.u32(); uint64(l) >= b.locals {
				r.fail("local %d does not exist", l)
			} else if op != opcodeLocalGet {
				b.assign(l)
			}
		case opGlobal:
			b.count++
			if g := r.u32(); g >= m.globals {
				r.fail("global %d does not exist", g)
			}
		case opTable:
			b.count++
			r.u32()
		case opMemIndex:
			b.count++
			b.memoryIndex()
			if op == 0x40 { // memory.grow: per page asked for
				b.count--
				b.chargeCount(start, GrowPrice, MaxMemoryPages, GrowPagePrice, 0, 0)
				b.afterGrow()
			}
		case opI32Const:
			b.count++
			b.constVal, b.constEnd = r.signed(32), r.pos
		case opI64Const:
			b.count++
			r.signed(64)
		case opF32Const:
			b.count++
			r.bytes(4)
		case opF64Const:
			b.count++
			r.bytes(8)
		case opSelectT:
			b.count++
			for n := r.count(); n > 0 && r.err == nil; n-- {
				m.checkValueType(r, r.byte())
			}
		case opRefNull:
			b.count++
			m.checkValueType(r, r.byte())
		case opRefFunc:
			b.count++
			b.flush(start)
			b.withFuncIndex(op)
		case opBlock:
			_, results := b.blockType()
			b.nest()
			b.frames = append(b.frames, frame{arity: results})
		case opLoop:
			params, _ := b.blockType()
			b.nest()
			if b.count == 0 {
				b.check = noCheck // the loop header's check follows at once
			}
			b.structural(start)
			b.frames = append(b.frames, frame{loop: true, arity: params})
			b.check = loopCheck
			// The header is a join: every way in moves its values.
			b.count += joinUnits(b.joinWidth(params))
		case opIf:
			b.count++
			b.branched += b.m.branchUnits
			_, results := b.blockType()
			b.nest()
			b.endSegment()
			b.frames = append(b.frames, frame{isIf: true, start: b.acc, arity: results})
		case opElse:
			b.structural(start)
			if f := &b.frames[len(b.frames)-1]; f.isIf && !f.hasElse {
				b.values += b.joinWidth(f.arity) // the then arm's edge to the end
				f.end = max(f.end, b.acc)
				b.acc, f.hasElse = f.start, true
			} else {
				r.fail("else without if")
			}
		case opEnd:
			b.depth--
			if b.depth == 0 {
				b.syncOutBefore(start)
				b.must = true // the caller goes on from a checked tank
			}
			b.structural(start)
			f := b.frames[len(b.frames)-1]
			b.frames = b.frames[:len(b.frames)-1]
			if (f.targeted || f.isIf) && len(b.frames) > 0 && !f.loop {
				// A join (the function's own end returns; a loop's end
				// is not one): the edge falling into it moves its
				// values, and every way in pays for them.
				b.joins++
				b.values += b.joinWidth(f.arity)
				b.count += joinUnits(b.joinWidth(f.arity))
			} else if f.loop && f.targeted {
				b.joins++
			}
			if f.isIf && !f.hasElse {
				f.end = max(f.end, f.start)
			}
			if !f.loop {
				b.acc = max(b.acc, f.end)
			}
			if b.depth == 0 {
				if !r.done() {
					r.fail("code after the final end of a function body")
				}
				return
			}
		case opBr:
			b.count++
			label := r.u32()
			if !b.toLoop(label) {
				b.branched += m.branchUnits
			}
			if b.leavesFunction(label) {
				b.syncOutBefore(start)
				b.must = true
			}
			b.endSegment()
			b.branch(label)
			if op == 0x0c { // br: nothing follows on this path
				b.acc = 0
			}
		case opBrTable:
			b.count++
			b.branched += m.branchUnits
			leaves := false
			n := r.count()
			if n > MaxBrTableTargets {
				overLimit(r, "the number of targets of a br_table", uint64(n), MaxBrTableTargets)
			}
			b.labels = b.labels[:0]
			for ; n >= 0 && r.err == nil; n-- {
				l := r.u32()
				b.labels = append(b.labels, l)
				leaves = b.leavesFunction(l) || leaves
			}
			if leaves {
				b.syncOutBefore(start)
				b.must = true
			}
			b.endSegment()
			for _, l := range b.labels {
				b.branch(l)
			}
			b.acc = 0
		case opEndsFlow:
			b.count++
			if op == opcodeReturn {
				b.syncOutBefore(start)
				b.must = true
			}
			b.endSegment()
			b.acc = 0
		case opCall:
			b.count++
			b.called += m.callUnits
			b.syncOutBefore(start)
			save := r.pos
			idx := r.u32()
			if idx < m.funcImports {
				b.must = true // a host call: the host sees a checked tank
			}
			if int(idx) < len(m.funcs) {
				b.noteCall(m.types[m.funcs[idx]])
			}
			r.pos = save
			b.calls = true
			if op != opcodeCall { // return_call: this frame goes first
				b.seg = b.stackBack(b.seg, FrameBytes(b.locals))
			}
			b.withFuncIndex(op)
			b.endCall(op)
		case opCallIndir:
			b.count++
			b.called += m.callUnits
			b.access++ // the read of the table
			if t := r.u32(); int(t) >= len(m.types) {
				r.fail("call_indirect uses type %d, which does not exist", t)
			} else {
				b.noteCall(m.types[t])
			}
			r.u32()
			b.syncOutBefore(start)
			b.calls = true
			if op != opcodeCallIndirect { // return_call_indirect
				b.seg = b.stackBack(b.seg, FrameBytes(b.locals))
			}
			b.must = true // the callee may be a host function
			b.endCall(op)
		case opMisc:
			b.count++
			b.misc(start)
		case opSIMD:
			b.count++
			b.values++ // a v128 takes two slots
			b.simd()
		case opThreads:
			r.refuse("%s", unsupported("threads", "atomic memory instructions").Msg)
		case opException:
			r.refuse("%s", unsupported("exception handling", "try, catch or throw instructions").Msg)
		case opTypedRef:
			r.refuse("%s", unsupported("typed function references", "call_ref, br_on_null or ref.as_non_null").Msg)
		case opGC:
			r.refuse("%s", unsupported("garbage collection (GC)", "struct, array or i31 instructions").Msg)
		default:
			r.pos = start
			r.fail("unknown opcode 0x%02x", op)
		}
	}
}

// noteCall counts a call of type t in the function's frame.
func (b *bodyRewriter) noteCall(t funcType) {
	b.callValues = max(b.callValues, uint64(len(t.params)+len(t.results)))
	b.values += valueSlots(t.results)
}

// valueSlots counts the 8-byte slots of values of those types: two for a
// v128.
func valueSlots(types []byte) uint64 {
	n := uint64(len(types))
	for _, t := range types {
		if t == typeV128 {
			n++
		}
	}
	return n
}

// nest opens a block, loop or if.
func (b *bodyRewriter) nest() {
	b.depth++
	if b.depth-1 > MaxNesting {
		overLimit(&b.r, "the nesting depth of blocks, loops and ifs", uint64(b.depth-1), MaxNesting)
	}
}

// branch records a branch to label from the end of the current segment.
func (b *bodyRewriter) branch(label uint32) {
	if int64(label) >= int64(len(b.frames)) {
		b.r.fail("branch to label %d, which does not exist", label)
		return
	}
	f := &b.frames[len(b.frames)-1-int(label)]
	f.targeted = true
	if len(b.frames)-1-int(label) > 0 {
		b.values += b.joinWidth(f.arity)
	}
	if !f.loop {
		f.end = max(f.end, b.acc)
	}
}

// toLoop tells whether a branch to label goes back to a loop's header, which
// a loop's code keeps in the host's caches, so it pays no branch surcharge.
// (It is also where the surcharge costs most: charging the branches back
// to a loop made the Go search's metered run 1.25-1.46 times its unmetered
// time, 1.22-1.27 without, against 1.15-1.26 with no branch surcharge.)
func (b *bodyRewriter) toLoop(label uint32) bool {
	return int64(label) < int64(len(b.frames)) && b.frames[len(b.frames)-1-int(label)].loop
}

// leavesFunction tells whether a branch to label returns from the function.
func (b *bodyRewriter) leavesFunction(label uint32) bool {
	return int64(label) == int64(b.depth)-1
}

// endCall ends the segment of a call. When the callee returns here (not
// after a tail call), the counter it leaves in the global is read back.
func (b *bodyRewriter) endCall(op byte) {
	b.endSegment()
	// A callee checks the tank at its entry and before it returns, so when
	// it returns everything charged so far has been checked.
	b.acc = 0
	if op == opcodeCall || op == opcodeCallIndirect {
		b.code = b.syncIn(b.code)
		b.code = b.stackBack(b.code, 0)
	}
}

// withFuncIndex reads the function index that follows op and writes both,
// the index shifted past the new import. The segment is flushed up to op.
func (b *bodyRewriter) withFuncIndex(op byte) {
	b.seg = append(b.seg, op)
	b.seg = appendU32(b.seg, b.m.funcIndex(&b.r))
	b.raw = b.r.pos
}

// flush copies the input bytes up to end into the current segment.
func (b *bodyRewriter) flush(end int) {
	b.seg = append(b.seg, b.r.b[b.raw:end]...)
	b.raw = end
}

// endSegment closes the current segment after the instruction just read:
// its charge, the check of the tank when one is due, then the segment's code.
//
// A segment is charged before it runs. It is checked too (one compare and a
// branch not taken) at function entry and loop headers, before it returns
// or calls the host (so an answer written by the host, and every caller,
// goes on from a checked tank), and wherever otherwise more than checkEvery
// units could have been charged since the last check on some path. Every
// check asks the tank for its segment and Reserve (= checkEvery) more, the
// most the code up to the next check can charge, so the code between two
// checks never runs on fuel the tank does not have, and a bot the tank
// cannot carry that far is stopped at the check, having paid for exactly
// the code that ran. Checking every segment would make wazero's compile
// time of a Go bot twice as long.
func (b *bodyRewriter) endSegment() {
	if b.check == loopCheck && b.count == 0 {
		// A loop header whose code up to the next branch or block boundary
		// is free still checks the tank: it costs 1 (the fifth red team's
		// 1,000 empty loops a unit took 0.8 µs of CPU a unit).
		b.count = 1
	}
	b.flush(b.r.pos)
	c := b.code
	acc := b.acc + b.count
	switch {
	case b.check != noCheck || (b.must && acc > 0) || acc > checkEvery:
		c = append(c, opcodeLocalGet)
		c = appendU32(c, b.fuel)
		if b.count > 0 {
			c = b.appendSubCharge(c)
			c = append(c, opcodeLocalTee)
			c = appendU32(c, b.fuel)
		}
		c = b.appendCheck(c, b.count, b.access, b.called, b.branched)
		if b.check == loopCheck {
			c = b.syncOut(c) // global = fuel, so a trap leaves it nearly exact
		}
		acc = 0
	case b.count > 0:
		// fuel = fuel - count - access * price
		c = append(c, opcodeLocalGet)
		c = appendU32(c, b.fuel)
		c = b.appendSubCharge(c)
		c = append(c, opcodeLocalSet)
		c = appendU32(c, b.fuel)
	}
	if b.checked {
		acc = 0
	}
	b.acc = acc
	b.code = c
	b.code = append(b.code, b.seg...)
	b.seg = b.seg[:0]
	if len(b.code) > b.room {
		b.r.refuse("the module's code grows past %d MiB when metered (compilers' output grows by about a half): it is made of an unusual number of branches and calls", maxMeteredCode>>20)
	}
	b.count, b.access, b.called, b.branched, b.check, b.must, b.checked = 0, 0, 0, 0, noCheck, false, false
}

// structural handles block structure that is a branch target or a fork
// (loop, else, end): the segment before it ends, the instruction itself
// goes out uncharged, and a new segment starts after it.
func (b *bodyRewriter) structural(start int) {
	end := b.r.pos
	b.r.pos = start
	b.endSegment()
	b.r.pos = end
	b.code = append(b.code, b.r.b[start:end]...)
	b.raw = end
}

// blockType reads a block type and returns the slots of its parameters
// and of its results.
func (b *bodyRewriter) blockType() (params, results uint64) {
	r := &b.r
	c := r.byte()
	switch {
	case c == blockTypeEmpty:
	case c >= 0x40 && c < 0x80: // a one-byte negative s33: a value type
		b.m.checkValueType(r, c)
		results = valueSlots([]byte{c})
	default: // a type index, for multi-value blocks
		r.pos--
		if t := r.signed(33); t < 0 || t >= int64(len(b.m.types)) {
			r.fail("block type %d does not exist", t)
		} else {
			ty := b.m.types[t]
			params, results = valueSlots(ty.params), valueSlots(ty.results)
		}
	}
	b.values += params + results
	return params, results
}

func (b *bodyRewriter) memarg() {
	r := &b.r
	if align := r.u32(); align&0x40 != 0 {
		r.refuse("%s", unsupported("multiple memories", "a memory index in a load or store").Msg)
	}
	r.u32()
}

func (b *bodyRewriter) memoryIndex() {
	if b.r.u32() != 0 {
		b.r.refuse("%s", unsupported("multiple memories", "an instruction on memory other than 0").Msg)
	}
}

// misc handles the 0xfc prefix: saturating conversions, bulk memory, tables.
// Every operation whose size is an operand is charged by that size before
// it runs: the size is on top of the stack in each of them.
func (b *bodyRewriter) misc(start int) {
	r := &b.r
	switch sub := r.u32(); {
	case sub <= 7: // trunc_sat
	case sub == 8: // memory.init: one access of the memory
		r.u32()
		b.memoryIndex()
		b.chargeBulk(start, 1)
	case sub == 10: // memory.copy: two, where it reads and where it writes
		b.memoryIndex()
		b.memoryIndex()
		b.chargeBulk(start, 2)
	case sub == 11: // memory.fill
		b.memoryIndex()
		b.chargeBulk(start, 1)
	case sub == 9, sub == 13, sub == 16: // data.drop, elem.drop, table.size
		r.u32()
	case sub == 15, sub == 17: // table.grow, table.fill
		r.u32()
		b.m.growsTables = b.m.growsTables || sub == 15
		b.count--
		b.chargeCount(start, TablePrice, MaxTableElements, TableElementPrice, 0, 0)
	case sub == 12, sub == 14: // table.init, table.copy
		r.u32()
		r.u32()
		b.count--
		b.chargeCount(start, TablePrice, MaxTableElements, TableElementPrice, 0, 0)
	default:
		r.fail("unknown opcode 0xfc %d", sub)
	}
}

// chargeBulk charges the length operand of the bulk memory instruction at
// start: one unit per BulkBytesPerUnit bytes, and the surcharge of access
// memory accesses (the bytes themselves go by in order, at the speed of
// the plain price, whatever the memory's size).
func (b *bodyRewriter) chargeBulk(start int, access int64) {
	b.count--
	b.chargeCount(start, BulkPrice, MemoryCap, 1, log2BulkBytesUnit, access)
}

// chargeCount charges, at run time, the operation at start, whose count is
// the i32 on top of the stack, as an unsigned count: base + min(n, clamp) *
// price >> shift, then checks the tank, so the operation runs only when it
// is paid for and leaves the reserve. The clamp is the most that can succeed
// (a larger request fails or traps without doing the work), so a bogus size
// cannot cost more than a real one. The segment ends after the operation:
// what follows is charged after it, so a bot stopped here has paid for
// exactly the code that ran.
//
//	local.tee tmp
//	(select (local.get tmp) (i32.const clamp) (i32.lt_u (local.get tmp) (i32.const clamp)))
//	i64.extend_i32_u; i64.const price; i64.mul; i64.const shift; i64.shr_u
//	i64.const base; i64.add; [global.get P; i64.const access; i64.mul; i64.add]; local.set cost
//	local.get fuel; local.get cost; i64.sub; local.tee fuel; check
func (b *bodyRewriter) chargeCount(start int, base, clamp, price int64, shift byte, access int64) {
	if b.r.err != nil {
		return
	}
	b.flush(start)
	if b.constEnd == start {
		// The size is the i32.const just before: the same charge,
		// worked out here (Go's output copies and zeroes its frames by
		// constant sizes), subtracted as a segment's is.
		n := int64(min(uint32(b.constVal), uint32(clamp)))
		k := base + int64(uint64(n*price)>>shift)
		s := append(b.seg, opcodeLocalGet)
		s = appendU32(s, b.fuel)
		s = append(s, opcodeI64Const)
		s = appendS64(s, k)
		s = append(s, opcodeI64Sub)
		s = b.appendSurcharges(s, access, 0, 0, opcodeI64Sub)
		s = append(s, opcodeLocalTee)
		s = appendU32(s, b.fuel)
		b.seg = b.appendCheck(s, k, access, 0, 0)
		b.checked = true
		b.endSegment()
		return
	}
	s := append(b.seg, opcodeLocalTee)
	s = appendU32(s, b.tmp)
	s = append(s, opcodeLocalGet)
	s = appendU32(s, b.tmp)
	s = append(s, opcodeI32Const)
	s = appendS64(s, int64(int32(uint32(clamp))))
	s = append(s, opcodeLocalGet)
	s = appendU32(s, b.tmp)
	s = append(s, opcodeI32Const)
	s = appendS64(s, int64(int32(uint32(clamp))))
	s = append(s, opcodeI32LtU, opcodeSelect, opcodeI64ExtendU)
	if price != 1 {
		s = append(s, opcodeI64Const)
		s = appendS64(s, price)
		s = append(s, opcodeI64Mul)
	}
	if shift != 0 {
		s = append(s, opcodeI64Const, shift, opcodeI64ShrU)
	}
	s = append(s, opcodeI64Const)
	s = appendS64(s, base)
	s = append(s, opcodeI64Add)
	if access > 0 {
		s = b.appendSurcharges(s, access, 0, 0, opcodeI64Add)
	}
	s = append(s, opcodeLocalSet)
	s = appendU32(s, b.cost)
	s = append(s, opcodeLocalGet)
	s = appendU32(s, b.fuel)
	s = append(s, opcodeLocalGet)
	s = appendU32(s, b.cost)
	s = append(s, opcodeI64Sub, opcodeLocalTee)
	s = appendU32(s, b.fuel)
	b.seg = b.appendCheck(s, -1, 0, 0, 0)
	b.checked = true
	b.endSegment()
}

// simd decodes the immediates of the 0xfd prefix; every SIMD instruction
// costs one unit, but the square roots SqrtPrice.
func (b *bodyRewriter) simd() {
	r := &b.r
	switch sub := r.u32(); {
	case sub <= 11, sub == 92, sub == 93: // loads and stores
		b.access++
		b.memarg()
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		r.bytes(16)
	case sub >= 21 && sub <= 34: // extract and replace lane
		r.bytes(1)
	case sub >= 84 && sub <= 91: // load and store lane
		b.access++
		b.memarg()
		r.bytes(1)
	case sub == 0xe3, sub == 0xef: // f32x4.sqrt, f64x2.sqrt
		b.count += SqrtPrice - 1
	case sub > 0x113:
		r.fail("unknown opcode 0xfd %d", sub)
	}
}
