package meter

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// withSection returns the standard bot with extra sections spliced in where
// the binary format wants them (by rebuilding it).
func standardBot(imports [][]byte, memories [][]byte, exports [][]byte, code ...[]byte) []byte {
	if len(code) == 0 {
		code = [][]byte{body(nil, end_)}
	}
	var fs [][]byte
	for range code {
		fs = append(fs, u32(tVoid))
	}
	return module(
		standardTypes,
		section(secImport, vec(imports...)),
		section(secFunction, vec(fs...)),
		section(secMemory, vec(memories...)),
		section(secExport, vec(exports...)),
		section(secCode, vec(code...)),
	)
}

var (
	okImports  = [][]byte{importFunc("wasi_snapshot_preview1", "fd_write", tI32)}
	okMemories = [][]byte{{0, 1}}
	okExports  = [][]byte{export("_start", kindFunc, 1), export("memory", kindMemory, 0)}
)

func TestAcceptsStandardBot(t *testing.T) {
	if _, err := Instrument(standardBot(okImports, okMemories, okExports)); err != nil {
		t.Fatal(err)
	}
}

func TestRefusals(t *testing.T) {
	big := make([]byte, MaxModuleSize+1)
	copy(big, "\x00asm\x01\x00\x00\x00")
	for _, tc := range []struct {
		name string
		wasm []byte
		want string // the whole message, or a part of it ending in "..."
	}{
		{"empty", nil, `not a WebAssembly module: the file does not start with the wasm magic bytes "\0asm"`},
		{"text", []byte("(module)"), `not a WebAssembly module: the file does not start with the wasm magic bytes "\0asm"`},
		{"elf", []byte("\x7fELF\x02\x01\x01\x00"), "not a WebAssembly module: this is a native (ELF) program; build for wasm, e.g. GOOS=wasip1 GOARCH=wasm go build"},
		{"version", []byte("\x00asm\x02\x00\x00\x00"), "unsupported WebAssembly binary version 2: only version 1 modules are accepted"},
		{"component", []byte("\x00asm\x0d\x00\x01\x00"), "the file is a WebAssembly component, not a core module: upload a WASI preview 1 command module (wasm32-wasip1)"},
		{"too large", big, "the module is 32.0 MiB, more than the limit of 32 MiB"},
		{"no _start", standardBot(okImports, okMemories, [][]byte{export("main", kindFunc, 1), export("memory", kindMemory, 0)}),
			`the module does not export a function named "_start": ...`},
		{"_start not a function", standardBot(okImports, okMemories, [][]byte{export("_start", kindMemory, 0), export("memory", kindMemory, 0)}),
			`the module does not export a function named "_start": ...`},
		{"_start with a parameter", standardBot(okImports, okMemories, [][]byte{export("_start", kindFunc, 0), export("memory", kindMemory, 0)}),
			`the exported function "_start" has type (i32) -> (), but it must be () -> (): a bot is a WASI command`},
		{"no memory", standardBot(okImports, okMemories, [][]byte{export("_start", kindFunc, 1)}),
			`the module does not export its linear memory as "memory", which WASI needs; do not build with an imported memory`},
		{"foreign import", standardBot([][]byte{importFunc("env", "foo", tVoid)}, okMemories, okExports),
			`import "env"."foo" is not allowed: a bot may import only from "wasi_snapshot_preview1" and "arena"`},
		{"imported memory", standardBot([][]byte{cat(str("env"), str("memory"), []byte{kindMemory, 0, 1})}, nil, okExports),
			`import "env"."memory" is not allowed: a bot may import only from "wasi_snapshot_preview1" and "arena"`},
		{"wasi memory", standardBot([][]byte{cat(str("wasi_snapshot_preview1"), str("memory"), []byte{kindMemory, 0, 1})}, nil, okExports),
			`import "wasi_snapshot_preview1"."memory" is not allowed: a bot may import only functions, and only from "wasi_snapshot_preview1" and "arena"`},
		{"other arena import", standardBot([][]byte{importFunc("arena", "turn", tFuelLeft)}, okMemories, okExports),
			`import "arena"."turn" is not allowed: the only function "arena" offers is "fuel_left", of type () -> i64`},
		{"fuel_left type", standardBot([][]byte{importFunc("arena", "fuel_left", tI32I32)}, okMemories, okExports),
			`import "arena"."fuel_left" has type (i32) -> i32, but it must be () -> i64`},
		{"reserved import", standardBot([][]byte{importFunc(ImportModule, ImportName, tVoid)}, okMemories, okExports),
			`import "arena_meter"."refill" is not allowed: the module name "arena_meter" is reserved for the fuel meter`},
		{"reserved export", standardBot(okImports, okMemories, append([][]byte{export(GlobalExport, kindFunc, 1)}, okExports...)),
			`export "arena_fuel" is not allowed: the name is reserved for the fuel meter; rename or drop the export`},
		{"shared memory", standardBot(okImports, [][]byte{{3, 1, 2}}, okExports),
			"the module uses threads (a shared memory), which the bot sandbox does not support: build the bot without it"},
		{"atomics", standardBot(okImports, okMemories, okExports, body(nil, i32c(0), []byte{0xfe, 0x10, 2, 0}, drop, end_)),
			"the module uses threads (atomic memory instructions), which the bot sandbox does not support: build the bot without it"},
		{"memory64", standardBot(okImports, [][]byte{{4, 1}}, okExports),
			"the module uses memory64 (a 64-bit memory), which the bot sandbox does not support: build the bot without it"},
		{"two memories", standardBot(okImports, [][]byte{{0, 1}, {0, 1}}, okExports),
			"the module uses multiple memories (more than one linear memory), which the bot sandbox does not support: build the bot without it"},
		{"memory index", standardBot(okImports, okMemories, okExports, body(nil, []byte{0x3f, 1}, drop, end_)),
			"the module uses multiple memories (an instruction on memory other than 0), ..."},
		{"exceptions", standardBot(okImports, okMemories, okExports, body(nil, []byte{0x06, 0x40}, end_, end_)),
			"the module uses exception handling (try, catch or throw instructions), ..."},
		{"tag section", module(standardTypes, section(secTag, vec(cat([]byte{0}, u32(tVoid))))),
			"the module uses exception handling (a tag section), ..."},
		{"GC types", module(section(secType, vec([]byte{0x5f, 0}))),
			"the module uses garbage collection (GC) (struct, array or recursive types), ..."},
		{"typed references", standardBot(okImports, okMemories, okExports, body(nil, []byte{0x14, 0}, end_)),
			"the module uses typed function references (call_ref, br_on_null or ref.as_non_null), ..."},
		{"truncated", standardBot(okImports, okMemories, okExports)[:30], "malformed module at byte ..."},
		{"unknown opcode", standardBot(okImports, okMemories, okExports, body(nil, []byte{0xff}, end_)),
			"malformed module at byte 99: unknown opcode 0xff"},
		{"writes the counter", standardBot(okImports, okMemories, okExports, body(nil, i64c(1<<40), globalSet(0), end_)),
			"malformed module at byte ...: global 0 does not exist"},
		{"unknown local", standardBot(okImports, okMemories, okExports, body(nil, localGet(0), drop, end_)),
			"malformed module at byte ...: local 0 does not exist"},
		{"body without end", standardBot(okImports, okMemories, okExports, body(nil, nop)),
			"malformed module at byte ...: function body ends before its final end"},
		{"code after end", standardBot(okImports, okMemories, okExports, body(nil, end_, nop)),
			"malformed module at byte ...: code after the final end of a function body"},
		{"sections out of order", module(section(secFunction, vec()), standardTypes),
			"malformed module at byte ...: section 1 is out of order or repeated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Instrument(tc.wasm)
			if err == nil {
				t.Fatalf("accepted (%d bytes out), want %q", len(out), tc.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not a *meter.Error: %v", err, err)
			}
			if !matches(err.Error(), tc.want) {
				t.Errorf("error\n  %s\nwant\n  %s", err, tc.want)
			}
		})
	}
}

// matches compares a message with a pattern whose "..." stands for any text.
func matches(msg, pattern string) bool {
	parts := strings.Split(pattern, "...")
	if !strings.HasPrefix(msg, parts[0]) {
		return false
	}
	msg = msg[len(parts[0]):]
	for i, p := range parts[1:] {
		j := strings.Index(msg, p)
		if j < 0 || (i == len(parts)-2 && !strings.HasSuffix(msg, p)) {
			return false
		}
		msg = msg[j+len(p):]
	}
	return len(parts) > 1 || msg == ""
}

// Instrumenting never touches its input.
func TestInputUnchanged(t *testing.T) {
	in := countdown(10)
	saved := bytes.Clone(in)
	if _, err := Instrument(in); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in, saved) {
		t.Error("Instrument modified its input")
	}
}

// A module made of nothing but calls grows a lot when metered; past a bound
// it is refused instead of taking host memory.
func TestRefusesCodeThatGrowsTooMuch(t *testing.T) {
	const calls = 3 << 20   // 2 bytes each in, about 30 out
	const perFunc = 200_000 // 400 KB a body, under MaxFunctionBody
	var bodies [][]byte
	for i := 0; i < calls/perFunc; i++ {
		bodies = append(bodies, body(nil, bytes.Repeat(call(1), perFunc), end_))
	}
	wasm := standardBot(okImports, okMemories, okExports, bodies...)
	_, err := Instrument(wasm)
	if err == nil || !matches(err.Error(), "the module's code grows past 32 MiB when metered ...") {
		t.Fatalf("err = %v", err)
	}
}
