package meter

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tetratelabs/wazero"
)

// countdown is a _start whose loop runs n times:
//
//	i32.const n; local.set 0             ;; 2 units
//	loop                                 ;; free
//	  local.get 0; i32.const 1; i32.sub  ;; 5 units per iteration
//	  local.tee 0; br_if 0
//	end end                              ;; free
//
// so it spends exactly 2 + 5n.
func countdown(n int32) []byte {
	return botModule([]uint32{tVoid}, body([][2]uint32{{1, typeI32}},
		i32c(n), localSet(0),
		loop_, localGet(0), i32c(1), i32Sub, localTee(0), brIf(0), end_,
		end_))
}

func TestLoopFuelIsExact(t *testing.T) {
	for _, tc := range []struct {
		n     int32
		slice int64
	}{
		{1, 1000}, {10, 1000}, {1000, 1000}, {100_000, 7}, {100_000, 1_000_000}, {1_000_000, 1_000_000},
	} {
		t.Run(fmt.Sprintf("n=%d,slice=%d", tc.n, tc.slice), func(t *testing.T) {
			tk := &tank{slice: tc.slice, left: 1 << 40}
			mod, err := run(t, countdown(tc.n), tk, wazero.NewModuleConfig())
			if err != nil {
				t.Fatal(err)
			}
			if got, want := tk.used(mod), 2+5*int64(tc.n); got != want {
				t.Errorf("used %d fuel, want %d", got, want)
			}
			// The counter is checked at every loop header, so a refill
			// comes at most one iteration (5 units) after the slice ran out.
			if min := (2 + 5*int64(tc.n)) / (tc.slice + 5); int64(tk.refills) < min {
				t.Errorf("%d refills, want at least %d", tk.refills, min)
			}
		})
	}
}

// An endless loop is stopped at the first loop header whose check finds less
// than the iteration and Reserve: it has spent exactly the iterations that
// ran, never more than the tank.
func TestEndlessLoopStopsAtTheTank(t *testing.T) {
	// loop; br 0; end: one unit per iteration.
	wasm := botModule([]uint32{tVoid}, body(nil, loop_, br(0), end_, end_))
	for _, capacity := range []int64{0, 1, 999, 1000, 1001, 2_000_000} {
		tk := &tank{slice: 1000, left: capacity}
		mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
		if !errors.Is(err, errOutOfFuel) {
			t.Fatalf("tank %d: err = %v, want out of fuel", capacity, err)
		}
		if got, want := tk.used(mod), max(capacity-Reserve, 0); got != want {
			t.Errorf("tank %d: stopped after %d fuel, want %d", capacity, got, want)
		}
	}
}

// The tank of the protocol: a bot that needs 19.8M of a 20M tank finishes,
// one that needs 20.1M is stopped; so is one that would leave less than
// Reserve, at the loop header that would go below it.
func TestTwentyMillionBoundary(t *testing.T) {
	for _, tc := range []struct {
		n       int32 // iterations of countdown: 2 + 5n fuel
		stopped bool
	}{
		{19_800_000 / 5, false},
		{20_100_000 / 5, true},
		{(20_000_000 - Reserve - 2) / 5, false}, // leaves exactly Reserve
		{(20_000_000-Reserve-2)/5 + 1, true},
	} {
		tk := &tank{slice: 1_000_000, left: 20_000_000}
		mod, err := run(t, countdown(tc.n), tk, wazero.NewModuleConfig())
		if stopped := errors.Is(err, errOutOfFuel); stopped != tc.stopped || (err != nil && !stopped) {
			t.Errorf("needs %d fuel: err = %v, want stopped %v", 2+5*int64(tc.n), err, tc.stopped)
		}
		if used := tk.used(mod); used > 20_000_000 {
			t.Errorf("needs %d fuel: used %d, more than the tank", 2+5*int64(tc.n), used)
		}
	}
}

// A call may re-enter the host (arena.fuel_left): by then the code before
// the call, the call included, is charged and nothing after it is.
func TestHostCallSeesExactCharge(t *testing.T) {
	wasm := botModule([]uint32{tVoid}, body(nil,
		nop, i32c(7), drop, // nop is free: 2 units
		block_, i32c(1), drop, end_, // 2 units
		call(0), globalSet(0), // 1 unit charged before the call, then 1
		i32c(5), drop, // 2 units
		end_))
	tk := &tank{slice: 1000, left: 1 << 40}
	mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
	if err != nil {
		t.Fatal(err)
	}
	if seen := int64(mod.ExportedGlobal(GlobalExport).Get()); seen == 0 {
		t.Fatal("counter global reads 0: the host handed out nothing?")
	}
	// The result global is not exported; the counter's final value shows
	// the total, and fuel_left is checked through a second module below.
	if got := tk.used(mod); got != 8 {
		t.Errorf("used %d, want 8", got)
	}

	// Same code, exporting the result global so the test can read it.
	wasm = module(
		standardTypes,
		section(secImport, vec(importFunc("arena", "fuel_left", tFuelLeft))),
		section(secFunction, vec(u32(tVoid))),
		section(secMemory, vec([]byte{0, 1})),
		section(secGlobal, vec(cat([]byte{typeI64, 1}, i64c(0), end_))),
		section(secExport, vec(export("_start", kindFunc, 1), export("memory", kindMemory, 0), export("seen", kindGlobal, 0))),
		section(secCode, vec(body(nil,
			nop, i32c(7), drop, block_, i32c(1), drop, end_,
			call(0), globalSet(0), i32c(5), drop, end_))),
	)
	tk = &tank{slice: 1000, left: 1 << 40}
	mod, err = run(t, wasm, tk, wazero.NewModuleConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(mod.ExportedGlobal("seen").Get()); got != 5 {
		t.Errorf("fuel_left inside the call saw %d used, want 5", got)
	}
	if got := tk.used(mod); got != 8 {
		t.Errorf("used %d, want 8", got)
	}
}

// Bulk memory instructions cost BulkPrice, plus one unit per whole 8 bytes
// of the length they get at run time.
func TestBulkMemoryCharge(t *testing.T) {
	for _, tc := range []struct {
		name  string
		code  []byte
		extra int64
	}{
		{"fill 0", cat(i32c(0), i32c(1), i32c(0), memoryFill), 0},
		{"fill 7", cat(i32c(0), i32c(1), i32c(7), memoryFill), 0},
		{"fill 8", cat(i32c(0), i32c(1), i32c(8), memoryFill), 1},
		{"fill 1000", cat(i32c(0), i32c(1), i32c(1000), memoryFill), 125},
		{"copy 65536", cat(i32c(0), i32c(0), i32c(65536), memoryCopy), 8192},
		{"copy 130", cat(i32c(100), i32c(0), i32c(130), memoryCopy), 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The local is there to check the scratch local is added after it.
			wasm := botModule([]uint32{tVoid}, body([][2]uint32{{1, typeI64}}, tc.code, i64c(3), localSet(0), end_))
			tk := &tank{slice: 1000, left: 1 << 40}
			mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
			if err != nil {
				t.Fatal(err)
			}
			if got, want := tk.used(mod), 5+BulkPrice+tc.extra; got != want {
				t.Errorf("used %d, want %d", got, want)
			}
		})
	}
}

// memory.init from a passive data segment is charged like memory.copy.
func TestMemoryInitCharge(t *testing.T) {
	data := make([]byte, 200)
	wasm := module(
		standardTypes,
		section(secFunction, vec(u32(tVoid))),
		section(secMemory, vec([]byte{0, 1})),
		section(secExport, vec(export("_start", kindFunc, 0), export("memory", kindMemory, 0))),
		section(secDataCount, u32(1)),
		section(secCode, vec(body(nil, i32c(0), i32c(0), i32c(200), []byte{0xfc, 8, 0, 0}, end_))),
		section(secData, vec(cat([]byte{1}, u32(uint32(len(data))), data))),
	)
	tk := &tank{slice: 1000, left: 1 << 40}
	mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tk.used(mod), int64(3+BulkPrice+200/BulkBytesPerUnit); got != want {
		t.Errorf("used %d, want %d", got, want)
	}
}

// Calls, recursion, call_indirect through a table, ref.func and the start
// section all keep working after every function index moves up by one.
func TestCallsAfterIndexShift(t *testing.T) {
	const n = 50
	wasm := shiftModule(n)
	// The start section runs at instantiation, before _start: its 2 units
	// count too.
	tk := &tank{slice: 1000, left: 1 << 40}
	mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(mod.ExportedGlobal("result").Get()); got != 42-100 {
		t.Errorf("result = %d, want %d", got, 42-100)
	}
	if got, want := tk.used(mod), int64(2+2+(6*n+2)+3+3+4+2); got != want {
		t.Errorf("used %d, want %d", got, want)
	}
	if def := mod.ExportedFunction("g").Definition(); def.Index() != 4 {
		t.Errorf("export g is function %d, want 4", def.Index())
	}
}

// shiftModule exercises every kind of function reference. Functions: 0
// fuel_left (import), 1 _start, 2 f(n) recursive, 3 g(x) = x+1 (reached
// through the table), 4 the start section. It uses 2+2+(6n+2)+3+3+4+2 fuel.
func shiftModule(n int32) []byte {
	// f(n) = n ? f(n-1) : 0 costs 6n+2.
	f := body(nil,
		localGet(0), []byte{0x04, 0x40}, // if: 2 units
		localGet(0), i32c(1), i32Sub, call(2), // 4 units
		end_, end_)
	g := body(nil, localGet(0), i32c(1), i32Add, end_) // 3 units
	start := body(nil, i64c(-100), globalSet(0), end_) // 2 units, runs at instantiation
	return module(
		standardTypes,
		section(secImport, vec(importFunc("arena", "fuel_left", tFuelLeft))),
		section(secFunction, vec(u32(tVoid), u32(tI32), u32(tI32I32), u32(tVoid))),
		section(secTable, vec([]byte{typeFuncref, 0, 1})),
		section(secMemory, vec([]byte{0, 1})),
		section(secGlobal, vec(cat([]byte{typeI64, 1}, i64c(0), end_))),
		section(secExport, vec(export("_start", kindFunc, 1), export("memory", kindMemory, 0),
			export("result", kindGlobal, 0), export("g", kindFunc, 3))),
		section(secStart, u32(4)),
		section(secElement, vec(cat([]byte{0}, i32c(0), end_, vec(u32(3))))),
		section(secCode, vec(
			body(nil,
				i32c(n), call(2), // 2 units, then f: 6n+2
				i32c(41), i32c(0), []byte{0x11}, u32(tI32I32), u32(0), // 3 units, then g: 3
				[]byte{0xac}, globalGet(0), []byte{0x7c}, globalSet(0), // i64.extend_i32_s, add: 4 units
				[]byte{0xd2}, u32(3), drop, // ref.func 3: 2 units
				end_),
			f, g, start,
		)),
	)
}

// Every way out of a function hands its count back to the caller: falling
// off the end, return, br/br_if/br_table to the function's own label, and a
// tail call. Functions: 0 fuel_left, 1 _start, 2..6 the exits below.
func TestEveryExitKeepsTheCount(t *testing.T) {
	exits := []struct {
		code []byte
		fuel int64
	}{
		{cat(i32c(1), drop, end_), 2},                                                       // falls off the end
		{cat(block_, i32c(1), []byte{0x0f}, end_, unreachable, end_), 2},                    // return
		{cat(block_, block_, i32c(1), brIf(2), end_, end_, unreachable, end_), 2},           // br_if to the function
		{cat(block_, i32c(2), []byte{0x0e, 2, 0, 0, 1}, end_, unreachable, end_), 2},        // br_table to the function
		{cat(block_, i32c(0), []byte{0x04, 0x40}, end_, br(1), end_, unreachable, end_), 3}, // br to the function
	}
	var bodies [][]byte
	var types []uint32
	startCode := []byte{}
	want := int64(0)
	for i, e := range exits {
		// The exit comes after a segment boundary, so its charge is not
		// stored by the entry check: 2 more units.
		bodies = append(bodies, body(nil, block_, i32c(0), brIf(0), end_, e.code))
		types = append(types, tVoid)
		startCode = cat(startCode, call(uint32(2+i)))
		want += 1 + 2 + e.fuel
	}
	// The last exit is a tail call from a sixth function into the first.
	bodies = append(bodies, body(nil, i32c(9), drop, []byte{0x12}, u32(2), end_))
	types = append(types, tVoid)
	startCode = cat(startCode, call(uint32(2+len(exits))))
	want += 1 + 3 + 2 + exits[0].fuel
	wasm := botModule(append([]uint32{tVoid}, types...), append([][]byte{body(nil, startCode, end_)}, bodies...)...)
	tk := &tank{slice: 1000, left: 1 << 40}
	mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := tk.used(mod); got != want {
		t.Errorf("used %d, want %d", got, want)
	}
}

// After a trap the counter global lags by at most the code charged since
// the last loop header.
func TestTrapLeavesCounterNearlyExact(t *testing.T) {
	// countdown's loop, then i32.const 1; drop; unreachable: 3 units after
	// the last loop header's store.
	const n = 1000
	wasm := botModule([]uint32{tVoid}, body([][2]uint32{{1, typeI32}},
		i32c(n), localSet(0),
		loop_, localGet(0), i32c(1), i32Sub, localTee(0), brIf(0), end_,
		i32c(1), drop, unreachable,
		end_))
	tk := &tank{slice: 1000, left: 1 << 40}
	mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
	if err == nil {
		t.Fatal("no trap")
	}
	exact := int64(2 + 5*n + 3)
	if got := tk.used(mod); got > exact || got < exact-3 {
		t.Errorf("after the trap the counter shows %d used, want %d to %d", got, exact-3, exact)
	}
}
