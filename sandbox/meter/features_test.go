package meter

import (
	"bytes"
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
)

// Modules using the features compilers emit, each with its exact cost.
var featureModules = []struct {
	name string
	wasm []byte
	fuel int64
}{
	{"simd", botModule([]uint32{tVoid}, body(nil,
		[]byte{0xfd, 12}, make([]byte, 16), // v128.const
		[]byte{0xfd, 12}, make([]byte, 16), // v128.const
		[]byte{0xfd, 13}, make([]byte, 16), // i8x16.shuffle
		[]byte{0xfd, 27, 3}, drop, // i32x4.extract_lane 3
		i32c(16), i32c(0), []byte{0xfd, 0, 4, 0}, // v128.load align=16
		[]byte{0xfd, 11, 4, 0},    // v128.store
		i32c(0), []byte{0xfd, 17}, // i32x4.splat
		[]byte{0xfd, 0xa1, 0x01}, drop, // i32x4.neg: a two-byte opcode
		i32c(0), i32c(0), []byte{0xfd, 17}, []byte{0xfd, 85, 1, 0, 7}, drop, // v128.load16_lane 7
		end_)), 18},
	{"square roots", botModule([]uint32{tVoid}, body(nil,
		[]byte{0x43, 0, 0, 0x80, 0x40}, []byte{0x91}, drop, // f32.const 4; f32.sqrt: 1 + 4 + 1
		i64c(2), []byte{0xb9}, []byte{0x9f}, drop, // i64 to f64; f64.sqrt: 1 + 1 + 4 + 1
		[]byte{0xfd, 12}, make([]byte, 16), []byte{0xfd, 0xe3, 0x01}, drop, // v128.const; f32x4.sqrt: 1 + 4 + 1
		[]byte{0xfd, 12}, make([]byte, 16), []byte{0xfd, 0xef, 0x01}, drop, // f64x2.sqrt: 1 + 4 + 1
		end_)), 6 + 7 + 6 + 6},
	{"multi-value", module(
		section(secType, vec(functype(nil, nil), functype(nil, []byte{typeI32, typeI32}))),
		section(secFunction, vec(u32(0))),
		section(secMemory, vec([]byte{0, 1})),
		section(secExport, vec(export("_start", kindFunc, 0), export("memory", kindMemory, 0))),
		section(secCode, vec(body(nil,
			[]byte{0x02, 1}, i32c(1), i32c(2), end_, i32Add, drop, // block (type 1)
			end_))),
	), 4},
	{"loop with a parameter", botModule([]uint32{tVoid}, body([][2]uint32{{1, typeI32}},
		i32c(3), []byte{0x03, tI32I32}, // loop (param i32) (result i32)
		i32c(1), i32Sub, localTee(0), localGet(0), brIf(0), // 5 units, 3 times
		end_, drop, end_)), 1 + 15 + 1},
	{"br_table", botModule([]uint32{tVoid}, body([][2]uint32{{1, typeI32}},
		block_, block_, block_,
		i32c(1), []byte{0x0e, 2, 0, 1, 2}, // br_table 0 1 2: jumps out of 2 blocks
		end_, i32c(100), drop, // skipped
		end_, i32c(7), localSet(0), // runs: 2 units
		end_, end_)), 4},
	{"if-else", botModule([]uint32{tVoid}, body([][2]uint32{{1, typeI32}},
		i32c(0), []byte{0x04, 0x7f}, i32c(1), []byte{0x05}, i32c(2), i32c(3), i32Add, end_, // 2 + else branch 3
		localSet(0), end_)), 6},
	{"sign-extension and saturating", botModule([]uint32{tVoid}, body(nil,
		i32c(-1), []byte{0xc0}, drop, // i32.extend8_s
		[]byte{0x43, 0, 0, 0x80, 0x7f}, []byte{0xfc, 0}, drop, // f32.const inf; i32.trunc_sat_f32_s
		end_)), 6},
	{"reference types", module(
		standardTypes,
		section(secFunction, vec(u32(tVoid))),
		section(secTable, vec([]byte{typeFuncref, 0, 1})),
		section(secMemory, vec([]byte{0, 1})),
		section(secExport, vec(export("_start", kindFunc, 0), export("memory", kindMemory, 0))),
		section(secElement, vec(cat([]byte{3, 0}, vec(u32(0))))), // declarative: lets ref.func 0 through
		section(secCode, vec(body(nil,
			[]byte{0xd0, typeFuncref}, []byte{0xd1}, drop, // ref.null func; ref.is_null: 3 units
			i32c(0), []byte{0xd2, 0}, []byte{0x26, 0}, // ref.func 0; table.set 0: 3 units
			i32c(1), i32c(2), i32c(0), []byte{0x1c, 1, typeI32}, drop, // select (result i32): 5 units
			[]byte{0xfc, 16, 0}, drop, // table.size: 2 units
			end_))),
	), 13},
}

func TestFeatureFuel(t *testing.T) {
	for _, tc := range featureModules {
		t.Run(tc.name, func(t *testing.T) {
			tk := &tank{slice: 1000, left: 1 << 40}
			mod, err := run(t, tc.wasm, tk, wazero.NewModuleConfig())
			if err != nil {
				t.Fatal(err)
			}
			if got := tk.used(mod); got != tc.fuel {
				t.Errorf("used %d, want %d", got, tc.fuel)
			}
		})
	}
}

// The "name" section follows the functions it names, so stack traces keep
// the right names.
func TestNamesFollowFunctions(t *testing.T) {
	wasm := cat(
		botModule([]uint32{tVoid, tVoid}, body(nil, call(2), end_), body(nil, end_)),
		section(secCustom, str("name"),
			[]byte{namesFunctions}, u32(uint32(len(vec(cat(u32(0), str("fuel")), cat(u32(1), str("main")), cat(u32(2), str("helper")))))),
			vec(cat(u32(0), str("fuel")), cat(u32(1), str("main")), cat(u32(2), str("helper"))),
		),
		section(secCustom, str(".debug_info"), []byte{1, 2, 3}),
	)
	out, err := Instrument(wasm)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	compiled, err := rt.CompileModule(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	if got := compiled.ExportedFunctions()["_start"].Name(); got != "main" {
		t.Errorf("_start is named %q, want main", got)
	}
	for _, f := range compiled.ImportedFunctions() {
		if f.Index() == 0 && f.Name() != "fuel" {
			t.Errorf("import 0 is named %q, want fuel", f.Name())
		}
	}
	if bytes.Contains(out, []byte(".debug_info")) {
		t.Error("debug info kept, though its code offsets are now wrong")
	}
}
