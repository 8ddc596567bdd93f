package meter

import (
	"context"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// A tiny assembler for hand-built test modules: sections are byte slices.

func u32(v uint32) []byte { return appendU32(nil, v) }
func s64(v int64) []byte  { return appendS64(nil, v) }
func str(s string) []byte { return appendName(nil, s) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// vec is a vector: its length, then its items.
func vec(items ...[]byte) []byte { return cat(u32(uint32(len(items))), cat(items...)) }

func section(id byte, content ...[]byte) []byte {
	c := cat(content...)
	return cat([]byte{id}, u32(uint32(len(c))), c)
}

func module(sections ...[]byte) []byte {
	return cat([]byte("\x00asm\x01\x00\x00\x00"), cat(sections...))
}

func functype(params, results []byte) []byte {
	return cat([]byte{0x60}, vec(bytesOf(params)...), vec(bytesOf(results)...))
}

func bytesOf(b []byte) [][]byte {
	out := make([][]byte, len(b))
	for i := range b {
		out[i] = b[i : i+1]
	}
	return out
}

func importFunc(mod, name string, typ uint32) []byte {
	return cat(str(mod), str(name), []byte{kindFunc}, u32(typ))
}

func export(name string, kind byte, idx uint32) []byte { return cat(str(name), []byte{kind}, u32(idx)) }

// body is a function body: local groups (count, type) then code, which must
// end with its final end (0x0b).
func body(locals [][2]uint32, code ...[]byte) []byte {
	var groups [][]byte
	for _, l := range locals {
		groups = append(groups, cat(u32(l[0]), []byte{byte(l[1])}))
	}
	b := cat(vec(groups...), cat(code...))
	return cat(u32(uint32(len(b))), b)
}

// Instructions used by the tests.
var (
	end_        = []byte{0x0b}
	nop         = []byte{0x01}
	drop        = []byte{0x1a}
	i32Sub      = []byte{0x6b}
	i32Add      = []byte{0x6a}
	loop_       = []byte{0x03, 0x40}
	block_      = []byte{0x02, 0x40}
	memoryFill  = []byte{0xfc, 11, 0}
	memoryCopy  = []byte{0xfc, 10, 0, 0}
	unreachable = []byte{0x00}
)

func i32c(v int32) []byte       { return cat([]byte{0x41}, appendS64(nil, int64(v))) }
func i64c(v int64) []byte       { return cat([]byte{0x42}, s64(v)) }
func localGet(i uint32) []byte  { return cat([]byte{0x20}, u32(i)) }
func localSet(i uint32) []byte  { return cat([]byte{0x21}, u32(i)) }
func localTee(i uint32) []byte  { return cat([]byte{0x22}, u32(i)) }
func globalGet(i uint32) []byte { return cat([]byte{0x23}, u32(i)) }
func globalSet(i uint32) []byte { return cat([]byte{0x24}, u32(i)) }
func call(i uint32) []byte      { return cat([]byte{0x10}, u32(i)) }
func br(l uint32) []byte        { return cat([]byte{0x0c}, u32(l)) }
func brIf(l uint32) []byte      { return cat([]byte{0x0d}, u32(l)) }

// Types of the standard test module.
const (
	tVoid     = 0 // () -> ()
	tFuelLeft = 1 // () -> i64
	tI32      = 2 // (i32) -> ()
	tI32I32   = 3 // (i32) -> i32
)

var standardTypes = section(secType, vec(
	functype(nil, nil),
	functype(nil, []byte{typeI64}),
	functype([]byte{typeI32}, nil),
	functype([]byte{typeI32}, []byte{typeI32}),
))

// botModule is a bot with the import arena.fuel_left (function 0), one page
// of memory, a mutable i64 global 0 for results, and the given defined
// functions (types and bodies), the first of which is _start (function 1).
func botModule(funcTypes []uint32, bodies ...[]byte) []byte {
	var fs [][]byte
	for _, t := range funcTypes {
		fs = append(fs, u32(t))
	}
	return module(
		standardTypes,
		section(secImport, vec(importFunc("arena", "fuel_left", tFuelLeft))),
		section(secFunction, vec(fs...)),
		section(secMemory, vec([]byte{0, 1})),
		section(secGlobal, vec(cat([]byte{typeI64, 1}, i64c(0), end_))),
		section(secExport, vec(export("_start", kindFunc, 1), export("memory", kindMemory, 0))),
		section(secCode, vec(bodies...)),
	)
}

// tank is the test host's side of the fuel counter: it hands out fuel in
// slices, like the runtime does, and stops the instance at a check that
// finds less than the charge it was called with and Reserve more.
type tank struct {
	slice   int64 // fuel the guest may run between refills
	left    int64 // fuel in the tank not yet handed out
	handed  int64 // fuel handed out so far
	refills int
	init    int64 // the instantiation's cost, which the tests pre-pay
	dear    bool  // memory accesses pay the dear prices (cost model 4)
}

var errOutOfFuel = errors.New("out of fuel")

// refill answers a check: counter is the guest's counter after charging
// charge.
func (t *tank) refill(mod api.Module, counter, charge int64) int64 {
	t.refills++
	setPrices(mod, t.dear)
	live := counter + t.left
	if live < Reserve {
		// The charged code does not run: give its charge back.
		mod.ExportedGlobal(GlobalExport).(api.MutableGlobal).Set(uint64(counter + charge))
		panic(errOutOfFuel)
	}
	s := min(live, t.slice+Reserve)
	t.handed += s - counter
	t.left = live - s
	return s
}

// used is the fuel the instance has spent: handed out minus what its counter
// still holds.
func (t *tank) used(mod api.Module) int64 {
	counter := mod.ExportedGlobal(GlobalExport)
	if counter == nil { // not instrumented
		return 0
	}
	return t.handed - int64(counter.Get()) - t.init
}

// run instruments wasm, runs it under t in a fresh wazero runtime with WASI
// and the arena import (fuel_left answers the fuel used so far), and returns
// the module and the error of its start.
func run(t testing.TB, wasm []byte, tk *tank, cfg wazero.ModuleConfig) (api.Module, error) {
	t.Helper()
	out, cost, err := instrument(wasm)
	if err != nil {
		t.Fatalf("Instrument: %v", err)
	}
	// The counter starts below zero by the cost of instantiation; the
	// tests measure code only, so the tank gets that much on top.
	if tk != nil {
		tk.init = cost
		tk.left += cost
	}
	return runPlain(t, out, tk, cfg)
}

// runPlain runs wasm as it is (instrumented or not) in a fresh runtime.
func runPlain(t testing.TB, wasm []byte, tk *tank, cfg wazero.ModuleConfig) (api.Module, error) {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().
		WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesTailCall))
	t.Cleanup(func() { rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	hostModules(ctx, t, rt, tk)
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		t.Fatalf("instrumented module does not compile: %v", err)
	}
	mod, err := rt.InstantiateModule(ctx, compiled, cfg.WithName("bot").WithStartFunctions())
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	// The price globals start at the start-up prices; set them as the
	// runtime would for the tank's phase.
	if _, ok := mod.ExportedGlobal(PriceExport).(api.MutableGlobal); ok && tk != nil {
		setPrices(mod, tk.dear)
	}
	_, err = mod.ExportedFunction("_start").Call(ctx)
	return mod, err
}

// hostModules instantiates the test host's refill and arena.fuel_left
// (which answers the fuel used so far).
func hostModules(ctx context.Context, t testing.TB, rt wazero.Runtime, tk *tank) {
	_, err := rt.NewHostModuleBuilder(ImportModule).NewFunctionBuilder().
		WithFunc(func(_ context.Context, mod api.Module, counter, charge int64) int64 {
			return tk.refill(mod, counter, charge)
		}).
		Export(ImportName).Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.NewHostModuleBuilder(arenaModule).NewFunctionBuilder().
		WithFunc(func(_ context.Context, m api.Module) int64 { return tk.used(m) }).
		Export(fuelLeft).Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
}

// setPrices sets the surcharges of a memory access and of a call as the
// runtime does (sandbox.Instance.reserve), for the phase.
func setPrices(mod api.Module, dear bool) {
	pages := uint64(mod.Memory().Size())/PageSize + mod.ExportedGlobal(TablePagesExport).Get()
	functions := mod.ExportedGlobal(FunctionsExport).Get()
	code := mod.ExportedGlobal(CodeBytesExport).Get()
	SetPrices(func(name string, v int64) { mod.ExportedGlobal(name).(api.MutableGlobal).Set(uint64(v)) },
		AccessPrice(pages, dear), CallPrice(functions, dear), BranchPrice(code, dear))
}
