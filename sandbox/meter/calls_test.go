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
