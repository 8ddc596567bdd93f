// Package meter checks a bot's WebAssembly module and rewrites it to count its
// own fuel, following the cost model of the bot protocol (docs/fuel.md).
//
// The rewritten module exports a mutable i64 global, GlobalExport, that
// counts down: every straight-line run of code subtracts its instruction
// count when it starts. At function entries, loop headers, returns, host
// calls, bulk operations and wherever else more than Reserve units could
// have been charged since the last check, the module checks that the
// counter still holds Reserve after the charge; when it does not, it calls
// the imported host function ImportModule.ImportName with the counter and
// the charge just made. The host answers with the new counter (the next
// slice of the tank) or stops the instance by panicking. The counter starts
// below zero by the cost of instantiation, so the first function entry
// calls refill at once, and the fuel spent is always "fuel handed out minus
// the counter".
//
// What the host can rely on:
//   - Between two checks at most Reserve units are charged, on any path. So
//     a host that answers every check with at least Reserve in the tank
//     (and returns from every host call with that much) never sees the tank
//     overdrawn, and one that stops the bot at a check, after giving back
//     the charge it was called with, has charged exactly the code that ran.
//   - During any host call (refill, arena.fuel_left, every WASI function) the
//     global is exact: everything before the call, the call included, is
//     charged, nothing after it. refill's first argument equals the global.
//   - A host function may write the global; the module reads it back after
//     every call.
//   - Between host calls the module keeps the counter in a local of the
//     running function and stores it to the global at every loop header, so
//     after a trap the global lags by at most the code run since the last
//     loop header or call (no loop: a bounded amount), and a write to the
//     global from another goroutine is lost: stop a running bot through
//     refill (a flag it checks) instead.
//
// Everything here is a pure function of the input bytes, so the same module
// is metered the same way on every machine.
package meter

import (
	"fmt"
	"strconv"
	"strings"
)

// CostModel is the version of the cost model; bump it on any change to what is
// charged, since fuel figures of different versions do not compare.
// Version 3 stops a bot at the check whose code and reserve the tank cannot
// pay, having charged exactly the code that ran, prices bulk memory at 8 +
// 1 per 8 bytes and iovecs at 32; version 4 adds the surcharge of a memory
// access by the memory's size (AccessPrice); version 5 that of a call by the
// number of the module's functions (CallPrice), and prices call_indirect's
// read of the table as a memory access, tables counting in the size;
// version 6 prices a page that memory.grow adds at GrowPagePrice, twice the
// 8,192 before (docs/fuel.md).
const CostModel = 6

const (
	ImportModule = "arena_meter" // the module name of the host function the pass imports
	ImportName   = "refill"      // type (param i64 i64) (result i64): the counter and the charge just made
	GlobalExport = "arena_fuel"  // the exported mutable i64 global: the fuel counter
	PriceExport  = "arena_price" // the exported mutable i64 global: the surcharge per memory access, set by the host
	// CallPriceExport is the exported mutable i64 global: the surcharge
	// per call and call_indirect, set by the host.
	CallPriceExport = "arena_call_price"
	// FunctionsExport is the exported i32 global: the number of functions
	// the module defines, for CallPrice.
	FunctionsExport = "arena_functions"
	// TablePagesExport is the exported i32 global: the most its tables can
	// hold, in 64 KiB pages of TableElementBytes an element (rounded down),
	// added to the memory's size for AccessPrice.
	TablePagesExport = "arena_table_pages"
	// BranchPriceExport is the exported mutable i64 global: the surcharge
	// per branch (br, br_if, br_table, if), set by the host.
	BranchPriceExport = "arena_branch_price"
	// CodeBytesExport is the exported i64 global: the size of the module's
	// code section in bytes, for BranchPrice.
	CodeBytesExport = "arena_code_bytes"
)

// reservedExports are the export names the pass adds.
var reservedExports = append([]string{GlobalExport, PriceExport, CallPriceExport, FunctionsExport, TablePagesExport, BranchPriceExport, CodeBytesExport}, surchargeNames()...)

// A Surcharge is an exported mutable i64 global holding what a straight-line
// run of Accesses memory accesses, ending in a branch or a call (or
// neither), pays beyond its instructions: Accesses times the access price,
// plus the branch price or the call price. A run subtracts it from the
// counter as one operand read from memory (wazero's compiler folds the
// global's load into the subtraction), where computing it from the prices
// takes a load, a multiplication and up to three subtractions, and keeping
// a price in a local costs a register and a reload after every call; the
// charge is the same to the unit. The host sets every surcharge the module
// exports whenever it sets the prices (SetPrices), so they always hold the
// prices' figures.
type Surcharge struct {
	Name     string
	Accesses int64
	Branch   bool // plus the branch price
	Call     bool // plus the call price
}

// Value is the surcharge at those prices.
func (s Surcharge) Value(access, call, branch int64) int64 {
	v := s.Accesses * access
	if s.Branch {
		v += branch
	}
	if s.Call {
		v += call
	}
	return v
}

// maxSurchargeAccesses is the most accesses of a run a Surcharge covers;
// a run with more (rare: long straight-line code) multiplies the price.
const maxSurchargeAccesses = 15

// Surcharges are the precomputed surcharges every metered module exports,
// in the order of their globals: the plain ones of 2 to
// maxSurchargeAccesses accesses (1 is PriceExport), then with the branch
// price and with the call price for 1 to maxSurchargeAccesses (0 is
// BranchPriceExport, CallPriceExport).
var Surcharges = func() []Surcharge {
	var s []Surcharge
	for n := int64(2); n <= maxSurchargeAccesses; n++ {
		s = append(s, Surcharge{Name: fmt.Sprintf("arena_surcharge_%d", n), Accesses: n})
	}
	for n := int64(1); n <= maxSurchargeAccesses; n++ {
		s = append(s, Surcharge{Name: fmt.Sprintf("arena_surcharge_%d_branch", n), Accesses: n, Branch: true})
	}
	for n := int64(1); n <= maxSurchargeAccesses; n++ {
		s = append(s, Surcharge{Name: fmt.Sprintf("arena_surcharge_%d_call", n), Accesses: n, Call: true})
	}
	return s
}()

func surchargeNames() []string {
	var names []string
	for _, s := range Surcharges {
		names = append(names, s.Name)
	}
	return names
}

// surchargeIndex is the index in Surcharges of the one for a run of access
// accesses, branched and called being 0 or 1 (a run ends at its first
// branch or call, so not both), or -1 when none covers it.
func surchargeIndex(access, branched, called int64) int {
	switch {
	case access < 1 || access > maxSurchargeAccesses:
		return -1
	case branched > 0:
		return maxSurchargeAccesses - 1 + int(access) - 1
	case called > 0:
		return 2*maxSurchargeAccesses - 1 + int(access) - 1
	case access >= 2:
		return int(access) - 2
	}
	return -1
}

// SetPrices sets, through set (which writes the named exported global),
// the prices of a memory access, a call and a branch and every Surcharge
// that follows from them: what a host does at every change of a price.
func SetPrices(set func(name string, v int64), access, call, branch int64) {
	set(PriceExport, access)
	set(CallPriceExport, call)
	set(BranchPriceExport, branch)
	for _, s := range Surcharges {
		set(s.Name, s.Value(access, call, branch))
	}
}

// Reserve is what every check asks the tank to hold after the charge of the
// code it starts: the most that can be charged, on any path, before the next
// check. A bot whose tank cannot carry it that far is stopped at the check.
const Reserve = 1000

// The imports a bot module may have, per the bot protocol.
const (
	wasiModule  = "wasi_snapshot_preview1"
	arenaModule = "arena"
	fuelLeft    = "fuel_left"
)

// The prices of cost model 3 (docs/fuel.md has the table and the
// measurements behind them, from BenchmarkCalibrate in package sandbox).
// Every plain instruction costs 1; block structure is free. Work whose size
// is an operand is charged before it runs, in proportion to the size,
// clamped to the most that can succeed; operations wazero carries out in Go
// also pay for that call.
const (
	// memory.copy, memory.fill, memory.init: BulkPrice + length/BulkBytesPerUnit.
	BulkPrice        = 8
	BulkBytesPerUnit = 8
	// memory.grow: GrowPrice + GrowPagePrice per 64 KiB page asked for.
	// The host work of a page is the kernel's allocating and zeroing it
	// (the sandbox does it at the grow: prefault). At PagePrice, a guest
	// growing a page and writing to each of its 4 KiB pages took up to
	// 4.7 ns of CPU a unit with eight matches on two cores, above the
	// 2.7 ns of the dearest work calibrated; at twice that, 2.0-2.6 ns
	// (BenchmarkGrowTouch in package sandbox; cost model 6).
	GrowPrice     = 256
	GrowPagePrice = 16384
	// PagePrice is the price of a page of the initial memory (below).
	PagePrice = 8192
	// table.grow, table.fill, table.copy, table.init: TablePrice +
	// TableElementPrice per element.
	TablePrice        = 256
	TableElementPrice = 4
	// Function entry: 1 per LocalsPerUnit locals it declares (zeroed).
	LocalsPerUnit = 8
	// f32.sqrt, f64.sqrt, f32x4.sqrt and f64x2.sqrt (cost model 5): a
	// chain of square roots took 4.1 ns of CPU an instruction, 18 times
	// the plain loop's, the slowest instruction measured
	// (BenchmarkCalibrate in package sandbox).
	SqrtPrice = 4
	// A join (a loop's header, the end of an if or of a block a branch
	// goes to) costs 1 unit more for every JoinValuesPerUnit values past
	// JoinFreeValues that arriving there moves, and 6 more for every
	// JoinValuesPerUnit past JoinWideValues, where the values no longer fit
	// the host's fastest caches (joinUnits, cost model 5).
	JoinFreeValues    = 16
	JoinValuesPerUnit = 3
	JoinWideValues    = 256
	// Instantiation, charged to the start-up allowance: PagePrice per page
	// of initial memory, TableElementPrice per initial table element, and
	// 1 per BulkBytesPerUnit bytes of the data section.
)

// The prices of host calls, charged by the sandbox before the call's work.
const (
	HostCallPrice         = 256 // every WASI or arena call
	HostBytesPerUnit      = 64  // plus 1 per this many bytes it reads or writes
	HostIovecPrice        = 32  // plus this per iovec of fd_read and fd_write: the host's writer is called once per iovec
	HostSubscriptionPrice = 64  // plus this per subscription of poll_oneoff
	RandomBytesPerUnit    = 4   // random_get: 1 per this many bytes instead

	// Each iovec past the first HostIovecsFlat of a call also pays two
	// memory accesses at the current AccessPrice: the host reads the
	// entry and then the buffer it points to, anywhere in memory, so in a
	// large memory scattered iovecs miss the caches as a pointer chase
	// does (cost model 4). A call's first few (a libc writes one or two)
	// pay the flat price alone.
	HostIovecsFlat = 4
	// HostMaxIovecs is the most iovecs the host takes from one call, as
	// Linux's IOV_MAX: a longer list is cut to it, a short read or write
	// that callers handle anyway, so that no single call runs long.
	HostMaxIovecs = 1024
)

// Error is every refusal of Instrument. Its message says in plain words what is
// wrong with the module and, where there is one, what to change.
type Error struct {
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// MaxQuotedName is the most of a module's name (of an import, an export)
// that a message quotes: the names are the uploader's, up to the module's
// size, and a message is stored, logged and shown.
const MaxQuotedName = 64

// QuoteName quotes a name from a module for a message, cut to MaxQuotedName
// bytes.
func QuoteName(name string) string {
	if len(name) <= MaxQuotedName {
		return strconv.Quote(name)
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(name[:MaxQuotedName]), len(name))
}

func refusal(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// unsupported refuses a module for using a WebAssembly proposal the sandbox
// does not run.
func unsupported(feature, how string) *Error {
	return refusal("the module uses %s (%s), which the bot sandbox does not support: build the bot without it", feature, how)
}

// Instrument checks a user's module and returns an equivalent module that
// meters itself. The input is not modified.
func Instrument(wasm []byte) ([]byte, error) {
	if len(wasm) > MaxModuleSize {
		return nil, refusal("the module is %.1f MiB, more than the limit of %d MiB", float64(len(wasm))/(1<<20), MaxModuleSize>>20)
	}
	if err := checkHeader(wasm); err != nil {
		return nil, err
	}
	out, _, err := instrument(wasm)
	return out, err
}

var wasmMagic = []byte{0x00, 'a', 's', 'm'}

func checkHeader(b []byte) error {
	if len(b) < 8 || string(b[:4]) != string(wasmMagic) {
		if strings.HasPrefix(string(b[:min(len(b), 4)]), "\x7fELF") {
			return refusal("not a WebAssembly module: this is a native (ELF) program; build for wasm, e.g. GOOS=wasip1 GOARCH=wasm go build")
		}
		return refusal(`not a WebAssembly module: the file does not start with the wasm magic bytes "\0asm"`)
	}
	switch v := uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24; v {
	case 1:
		return nil
	case 0x1000d:
		return refusal("the file is a WebAssembly component, not a core module: upload a WASI preview 1 command module (wasm32-wasip1)")
	default:
		return refusal("unsupported WebAssembly binary version %d: only version 1 modules are accepted", v)
	}
}

// tier is a surcharge on every memory access (loads, stores, and the
// accesses of bulk memory operations) of cost model 4: an access costs 1 +
// Price when the linear memory is larger than Above pages when it runs.
// A memory that fits in the host's caches pays nothing more; one that
// outgrows them makes every access that misses them wait for main memory
// and the page tables, up to hundreds of times an instruction's time
// (BenchmarkChase in package sandbox, docs/fuel.md). The comments give the
// worst CPU time a hop of a dependent-load chase took in the largest memory
// of the tier.
type tier struct{ Above, Price int64 }

// turnTiers price the first DearAfter units of an answer: a full tank of
// 20,000,000 of nothing but chasing takes at most about 25 ns a unit,
// 0.5 s, a quarter of the backstop.
var turnTiers = []tier{
	{Above: 8, Price: 2},     // over 512 KiB: 53 ns a hop
	{Above: 16, Price: 5},    // over 1 MiB: 133 ns
	{Above: 32, Price: 8},    // over 2 MiB: 175-220 ns
	{Above: 512, Price: 15},  // over 32 MiB: 250-384 ns
	{Above: 2048, Price: 25}, // over 128 MiB: 495-640 ns
}

// dearTiers price start-up (its allowance is 100,000,000) and whatever an
// answer spends beyond DearAfter (a chess clock's answer may spend
// 100,000,000): five times the fuel for the same time, about 5 ns a unit,
// so 100,000,000 of chasing takes 0.5 s too.
var dearTiers = []tier{
	{Above: 2, Price: 2},      // over 128 KiB: 14 ns a hop
	{Above: 4, Price: 4},      // over 256 KiB: 23 ns
	{Above: 8, Price: 10},     // over 512 KiB: 53 ns
	{Above: 16, Price: 26},    // over 1 MiB: 133 ns
	{Above: 32, Price: 44},    // over 2 MiB: 175-220 ns
	{Above: 512, Price: 80},   // over 32 MiB: 250-384 ns
	{Above: 2048, Price: 128}, // over 128 MiB: 495-640 ns
}

// DearAfter is what an answer spends at the turn's prices; start-up, and an
// answer past this much, pay the dear ones.
const DearAfter = 20_000_000

// AccessPrice is the surcharge per memory access of a memory of that many
// 64 KiB pages, at the prices of a turn, or the dear ones.
func AccessPrice(pages uint64, dear bool) int64 {
	if dear {
		return priceOf(dearTiers, pages)
	}
	return priceOf(turnTiers, pages)
}

// priceOf is the price of the highest tier that n is above.
func priceOf(tiers []tier, n uint64) int64 {
	var p int64
	for _, t := range tiers {
		if int64(n) > t.Above {
			p = t.Price
		}
	}
	return p
}

// Cost model 5: a call jumps into another function's machine code, which
// may not be in the host's instruction caches or TLB. With a few hundred
// functions all of it stays there; with thousands, a bot that calls them in
// a scattered order misses at every call, all the more as the code of each
// grows (BenchmarkCallChase in package sandbox: 6 ns a call with 512
// functions, 24 with 1,024, 58-71 with 2,048-8,192, 151 with 16,384 and
// 210-220 with more, each spread over as much code as the limit allows;
// docs/fuel.md). Every call and call_indirect costs 1 + CallPrice of the
// module's number of functions, at the turn's prices for the first
// DearAfter units of an answer and at the dear ones in start-up and beyond,
// so that a call chase takes at most about 25 and 5 ns a unit as a memory
// chase does. The comments give the worst CPU time of a call in the tier
// (a chase pays 3 units a call before the surcharge).

// callTurnTiers price calls in a turn.
var callTurnTiers = []tier{
	{Above: 8192, Price: 4},  // over 8,192 functions: 151 ns
	{Above: 16384, Price: 6}, // over 16,384: 220 ns
}

// callDearTiers price calls in start-up and past DearAfter of an answer.
var callDearTiers = []tier{
	{Above: 512, Price: 2},    // over 512 functions: 24 ns
	{Above: 1024, Price: 9},   // over 1,024: 58 ns
	{Above: 2048, Price: 12},  // over 2,048: 71 ns
	{Above: 8192, Price: 28},  // over 8,192: 151 ns
	{Above: 16384, Price: 41}, // over 16,384: 220 ns
}

// CallPrice is the surcharge per call and call_indirect of a module that
// defines that many functions, at the prices of a turn, or the dear ones.
func CallPrice(functions uint64, dear bool) int64 {
	if dear {
		return priceOf(callDearTiers, functions)
	}
	return priceOf(callTurnTiers, functions)
}

// Cost model 5 also prices branches by the size of the module's code. A
// branch jumps to another place of the code, and a bot whose code is
// megabytes of small pieces, each a branch over a stretch that never runs,
// makes every branch fetch code from another line, or page, that is not in
// the host's caches: the fifth red team's 512 functions (no call
// surcharge) of such pieces took 1.4 ns of CPU a unit in 434 KB of code, 6.7
// in 867 KB, 13 in 1.7 MB, 21-50 in 1.9 MB (smaller pieces), 16 in 2.3 MB,
// 56 in 4 MB and 88 in 8 MB (a piece is 2 units: i32.const and if). Every
// br, br_if, br_table and if costs 1 + BranchPrice of the code section's
// size, set so that a piece takes at most about 25 ns a unit in a turn and 5
// dear, as a memory or call chase does.

// branchTurnTiers price branches in a turn, by the code section's bytes.
var branchTurnTiers = []tier{
	{Above: 1536 << 10, Price: 1}, // over 1.5 MiB: 21-50 ns a unit at 1.9 MB
	{Above: 2304 << 10, Price: 7}, // over 2.25 MiB: 56 ns at 4 MB
	{Above: 4 << 20, Price: 10},   // over 4 MiB: 88 ns at 8 MB
}

// branchDearTiers price branches in start-up and past DearAfter.
var branchDearTiers = []tier{
	{Above: 448 << 10, Price: 1},   // over 448 KiB: 6.7 ns at 867 KB
	{Above: 896 << 10, Price: 5},   // over 896 KiB: 13 ns at 1.7 MB
	{Above: 1536 << 10, Price: 10}, // over 1.5 MiB: 21-50 ns at 1.9 MB
	{Above: 2304 << 10, Price: 36}, // over 2.25 MiB: 56 ns at 4 MB
	{Above: 4 << 20, Price: 50},    // over 4 MiB: 88 ns at 8 MB
}

// BranchPrice is the surcharge per branch of a module whose code section
// has that many bytes, at the prices of a turn, or the dear ones.
func BranchPrice(codeBytes uint64, dear bool) int64 {
	if dear {
		return priceOf(branchDearTiers, codeBytes)
	}
	return priceOf(branchTurnTiers, codeBytes)
}
