package meter

import "fmt"

// The limits at the door (docs/sandbox.md lists them for users). A module
// over any of them is refused before anything compiles it. They are set so
// that the modules compilers produce for bots pass with a wide margin
// (limits_test.go measures the example bots against them), while no module
// within them can make metering or wazero's compiler take more than a few
// seconds or a few hundred MiB (TestDoorBombs measures the worst shapes).
const (
	MaxModuleSize      = 32 << 20 // bytes of the whole file
	MaxCodeSection     = 8 << 20  // bytes of the code section
	MaxFunctionBody    = 512 << 10
	MaxLocals          = 50_000 // per function, parameters included
	MaxNesting         = 1_024  // blocks, loops and ifs open at once in a function
	MaxBrTableTargets  = 65_536 // labels of one br_table
	MaxFunctions       = 100_000
	MaxTypes           = 10_000
	MaxGlobals         = 10_000
	MaxImports         = 1_000
	MaxExports         = 10_000
	MaxDataSegments    = 100_000
	MaxElemSegments    = 100_000
	MaxTables          = 100
	MaxTableElements   = 1 << 20 // all tables together, at their largest
	MaxSegmentElements = 1 << 20 // elements of all element segments together
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
