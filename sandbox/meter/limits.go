package meter

import "fmt"

// The limits at the door (docs/sandbox.md lists them for users). A module
// over any of them is refused before anything compiles it. They are set so
// that the modules compilers produce for bots pass with a wide margin
// (limits_test.go measures the example bots against them), while no module
// within them can make metering or wazero's compiler take more than a few
// seconds or a few hundred MiB (TestDoorBombs measures the worst shapes).
const (
	MaxModuleSize   = 32 << 20 // bytes of the whole file
	MaxCodeSection  = 8 << 20  // bytes of the code section
	MaxFunctionBody = 512 << 10
	MaxLocals       = 50_000 // per function, parameters included
	// MaxAllLocals bounds the locals of all functions together: wazero
	// allocates and validates every declared local, and a 16 KB module of
	// 2,000 functions of 49,999 locals took the host 7.5 s and 771 MiB.
	MaxAllLocals      = 4_000_000
	MaxNesting        = 1_024  // blocks, loops and ifs open at once in a function
	MaxBrTableTargets = 65_536 // labels of one br_table
	MaxFunctions      = 100_000
	MaxTypes          = 10_000
	// wazero's compiler makes code for every function type, in proportion
	// to its parameters and results, used or not: one type of a million
	// results, or 10,000 types of 3,000 parameters, ran the compiler out of
	// its CPU time. Compilers give types a handful of each.
	MaxTypeValues    = 1_000   // parameters, and results, of one function type
	MaxAllTypeValues = 100_000 // parameters and results of all types together
	MaxGlobals       = 10_000
	MaxImports       = 1_000
	MaxExports       = 10_000
	MaxDataSegments  = 100_000
	MaxElemSegments  = 100_000
	MaxTables        = 100
	MaxTableElements = 1 << 20 // all tables together, at their largest
	// MaxSegmentElements bounds the elements of all element segments
	// together. wazero resolves every one when it instantiates the module,
	// work the fuel does not see: a segment of 1,048,576 took 0.6-1.7 s of
	// the first answer's wall clock (timeout on a loaded machine), 100,000
	// take 25-75 ms. A Go bot has about 6,000.
	MaxSegmentElements = 1 << 17
	// MaxStackBytes bounds the host stack the calls open at once can take,
	// as estimated by FrameBytes: deeper, the bot traps (status crash). A
	// function that calls nothing is not counted: it adds one frame at most.
	MaxStackBytes = 16 << 20
)

// Memory: linear memory and tables share one cap (MemoryCap). Tables may
// hold at most MaxTableElements elements, TableElementBytes each on the host,
// and linear memory gets the rest.
const (
	MemoryCap         = 256 << 20
	TableElementBytes = 8
	PageSize          = 64 << 10
	MaxMemoryPages    = (MemoryCap - MaxTableElements*TableElementBytes) / PageSize
)

// overLimit refuses the module for a count or size over one of the limits.
func overLimit(r *reader, what string, value uint64, limit uint64) {
	r.refuse("%s", limitMsg(what, value, limit))
}

func limitMsg(what string, value, limit uint64) string {
	return fmt.Sprintf("the module is over a limit of the bot sandbox: %s is %d, more than the limit of %d (docs/sandbox.md lists the limits)", what, value, limit)
}

// Check tells whether the module would be accepted, without keeping the
// metered result: the same checks, in the same bounded time, as Instrument.
func Check(wasm []byte) error {
	_, err := Instrument(wasm)
	return err
}
