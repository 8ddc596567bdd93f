package meter

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tetratelabs/wazero"
)

// manyFunctions is a bot of n defined functions: _start calls function 2,
// an empty one, ten times; the others are empty too.
func manyFunctions(n int) []byte {
	types := make([]uint32, n)
	bodies := make([][]byte, n)
	bodies[0] = body(nil, bytes.Repeat(call(2), 10), end_)
	for i := 1; i < n; i++ {
		bodies[i] = body(nil, end_)
	}
	return botModule(types, bodies...)
}

// Every call pays the call surcharge of the module's number of functions,
// exactly, at both edges of every tier, in a turn and at the dear prices.
func TestCallPriceByTier(t *testing.T) {
	for _, dear := range []bool{false, true} {
		counts := []uint64{2}
		for _, tier := range callDearTiers {
			counts = append(counts, uint64(tier.Above), uint64(tier.Above)+1)
		}
		for _, n := range counts {
			t.Run(fmt.Sprintf("%d functions, dear %v", n, dear), func(t *testing.T) {
				tk := &tank{slice: 1 << 30, left: 1 << 40, dear: dear}
				mod, err := run(t, manyFunctions(int(n)), tk, wazero.NewModuleConfig())
				if err != nil {
					t.Fatal(err)
				}
				p := CallPrice(n, dear)
				if got, want := tk.used(mod), 10*(1+p); got != want {
					t.Errorf("used %d fuel, want %d (surcharge %d)", got, want, p)
				}
			})
		}
	}
}

// The prices: nothing for a module whose code stays in the host's caches,
// rising with the number of functions, dearer in start-up.
func TestCallTiers(t *testing.T) {
	if CallPrice(512, true) != 0 {
		t.Errorf("a module of 512 functions pays %d a call at start-up", CallPrice(512, true))
	}
	var last, lastDear int64
	for n := uint64(1); n <= MaxFunctions; n += 97 {
		p, d := CallPrice(n, false), CallPrice(n, true)
		if p < last || d < lastDear || d < p {
			t.Fatalf("at %d functions a call costs %d in a turn and %d when dear, after %d and %d", n, p, d, last, lastDear)
		}
		last, lastDear = p, d
	}
}

// A module that never pays for a call has no code to subtract it: past 512
// functions, every call's charge reads the call price global (global 4 of
// botModule: its own global, then the fuel counter, the stack estimate, the
// access price and the call price), and up to 512 none does.
func TestFreeCallsCostNoCode(t *testing.T) {
	callPrice := globalGet(1 + globalCallPrice)
	for _, tc := range []struct{ n, least, most int }{{512, 0, 0}, {513, 10, 1 << 20}} {
		wasm, err := Instrument(manyFunctions(tc.n))
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Count(wasm, callPrice); got < tc.least || got > tc.most {
			t.Errorf("%d functions: the call price is read %d times, want %d to %d", tc.n, got, tc.least, tc.most)
		}
	}
}

// tableBot is a bot with a table of size elements, holding function 2 at
// element 0, and pages of memory; _start runs call_indirect to element 0
// ten times. Function 2 does nothing, or if grows, runs i32.const 0 and an
// if (2 units) around a table.grow that never runs.
func tableBot(size uint32, pages uint32, grows bool) []byte {
	code := cat(bytes.Repeat(cat(i32c(0), []byte{0x11, tVoid, 0}), 10), end_)
	other := body(nil, end_)
	if grows {
		// ref.null func; i32.const 1; table.grow 0; drop, never run.
		other = body(nil, i32c(0), []byte{0x04, 0x40}, []byte{0xd0, 0x70}, i32c(1), []byte{0xfc, 15, 0}, drop, end_, end_)
	}
	return module(
		standardTypes,
		section(secImport, vec(importFunc("arena", "fuel_left", tFuelLeft))),
		section(secFunction, vec(u32(tVoid), u32(tVoid))),
		section(secTable, vec(cat([]byte{0x70, 0}, u32(size)))),
		section(secMemory, vec(cat([]byte{0}, u32(pages)))),
		section(secExport, vec(export("_start", kindFunc, 1), export("memory", kindMemory, 0))),
		section(secElement, vec(cat(u32(0), i32c(0), end_, vec(u32(2))))),
		section(secCode, vec(body(nil, code), other)),
	)
}

// call_indirect pays a memory access, at the price of a memory as large as
// the linear memory and the tables together: the tables at their initial
// size, or at the most they can grow to when the code grows one.
func TestCallIndirectPaysAnAccess(t *testing.T) {
	for _, tc := range []struct {
		size, pages uint32
		grows       bool
		tablePages  uint64
	}{
		{1, 1, false, 0},
		{8191, 1, false, 0},                   // 64 KiB less 8 bytes: rounded down
		{131072, 1, false, 16},                // 1 MiB of table
		{131072, 20, false, 16},               // and 1.25 MiB of memory
		{1, 1, true, MaxTableElements / 8192}, // may grow to all of them
	} {
		for _, dear := range []bool{false, true} {
			t.Run(fmt.Sprintf("table %d, %d pages, grows %v, dear %v", tc.size, tc.pages, tc.grows, dear), func(t *testing.T) {
				tk := &tank{slice: 1 << 30, left: 1 << 40, dear: dear}
				mod, err := run(t, tableBot(tc.size, tc.pages, tc.grows), tk, wazero.NewModuleConfig())
				if err != nil {
					t.Fatal(err)
				}
				if got := mod.ExportedGlobal(TablePagesExport).Get(); got != tc.tablePages {
					t.Errorf("table pages %d, want %d", got, tc.tablePages)
				}
				p := AccessPrice(uint64(tc.pages)+tc.tablePages, dear)
				callee := int64(0)
				if tc.grows {
					callee = 2
				}
				if got, want := tk.used(mod), 10*(2+p+callee); got != want {
					t.Errorf("used %d fuel, want %d (access surcharge %d)", got, want, p)
				}
			})
		}
	}
}

// branchyBot is a bot whose _start runs ten br_ifs not taken (i32.const 0;
// br_if 0 in a block: 2 units each) and whose other functions, never run,
// are padding bytes of nops, so that its code section has at least
// codeBytes bytes.
func branchyBot(codeBytes int) []byte {
	start := body(nil, bytes.Repeat(cat(block_, i32c(0), brIf(0), end_), 10), end_)
	bodies := [][]byte{start}
	for left := codeBytes; left > 0; left -= MaxFunctionBody / 2 {
		bodies = append(bodies, body(nil, bytes.Repeat(nop, min(left, MaxFunctionBody/2)), end_))
	}
	return botModule(make([]uint32, len(bodies)), bodies...)
}

// Every branch pays the surcharge of the code section's size, exactly, in
// a turn and at the dear prices, at both edges of the tiers.
func TestBranchPriceByTier(t *testing.T) {
	if testing.Short() {
		t.Skip("megabytes of code to meter")
	}
	for _, size := range []int{1000, 448<<10 - 200, 448<<10 + 1000, 1536<<10 + 1000, 4<<20 + 1000} {
		wasm := branchyBot(size)
		for _, dear := range []bool{false, true} {
			tk := &tank{slice: 1 << 30, left: 1 << 40, dear: dear}
			mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
			if err != nil {
				t.Fatal(err)
			}
			code := mod.ExportedGlobal(CodeBytesExport).Get()
			if code < uint64(size) || code > uint64(size)+64<<10 {
				t.Errorf("%d bytes of padding: the code section is %d bytes", size, code)
			}
			p := BranchPrice(code, dear)
			if got, want := tk.used(mod), 10*(2+p); got != want {
				t.Errorf("%d bytes of code, dear %v: used %d, want %d (surcharge %d)", code, dear, got, want, p)
			}
		}
	}
	if BranchPrice(448<<10, true) != 0 || BranchPrice(1536<<10, false) != 0 {
		t.Errorf("code of 448 KiB pays %d a branch dear, of 1.5 MiB %d in a turn", BranchPrice(448<<10, true), BranchPrice(1536<<10, false))
	}
}

// A join pays for the values arriving there moves: a loop over 40 assigned
// locals runs 10 times, its header arrived at 10 times, each paying
// joinUnits(40) = 8 besides the loop's 5 instructions; an empty loop costs 1.
// (The entry pays 5 for zeroing the 40 locals.)
func TestJoinsPayForTheirValues(t *testing.T) {
	var sets []byte
	for l := uint32(1); l < 40; l++ {
		sets = cat(sets, i32c(0), localSet(l))
	}
	loop := cat(i32c(10), localSet(0), sets,
		loop_, localGet(0), i32c(1), i32Sub, localTee(0), brIf(0), end_)
	for _, tc := range []struct {
		name string
		code []byte
		want int64
	}{
		{"a loop over 40 assigned locals", loop, 5 + 2 + 2*39 + 10*(5+8)},
		{"three empty loops", cat(loop_, end_, loop_, end_, loop_, end_), 5 + 3},
	} {
		wasm := botModule([]uint32{tVoid}, body([][2]uint32{{40, typeI32}}, tc.code, end_))
		tk := &tank{slice: 1 << 30, left: 1 << 40}
		mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.used(mod); got != tc.want {
			t.Errorf("%s: used %d, want %d", tc.name, got, tc.want)
		}
	}
	if joinUnits(16) != 0 || joinUnits(19) != 1 || joinUnits(256) != 80 || joinUnits(259) != 87 {
		t.Errorf("joinUnits: 16 %d, 19 %d, 256 %d, 259 %d", joinUnits(16), joinUnits(19), joinUnits(256), joinUnits(259))
	}
}
