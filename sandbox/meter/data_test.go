package meter

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// activeSeg is an active data segment of memory 0 at a constant offset.
func activeSeg(offset int32, length int) []byte {
	return cat([]byte{0, 0x41}, appendS64(nil, int64(offset)), []byte{0x0b}, u32(uint32(length)), make([]byte, length))
}

func TestDataSpans(t *testing.T) {
	const page = 4096
	passive := cat([]byte{1}, u32(3), []byte("abc"))
	otherMemory := cat([]byte{2}, u32(1), []byte{0x41, 0, 0x0b}, u32(2), []byte("xy"))
	byGlobal := cat([]byte{0, 0x23, 0, 0x0b}, u32(1), []byte("z"))
	for _, tc := range []struct {
		name string
		segs [][]byte
		want []Span
	}{
		{"none", nil, nil},
		{"one byte", [][]byte{activeSeg(5, 1)}, []Span{{0, page}}},
		{"across a page boundary", [][]byte{activeSeg(page-1, 2)}, []Span{{0, 2 * page}}},
		{"touching pages merge", [][]byte{activeSeg(0, 10), activeSeg(page, 10), activeSeg(2*page+7, 1)}, []Span{{0, 3 * page}}},
		{"a gap of a page stays", [][]byte{activeSeg(0, 10), activeSeg(2*page, 10)}, []Span{{0, page}, {2 * page, 3 * page}}},
		{"out of order", [][]byte{activeSeg(5*page, 1), activeSeg(0, 1)}, []Span{{0, page}, {5 * page, 6 * page}}},
		{"an empty segment writes nothing", [][]byte{activeSeg(3*page, 0)}, nil},
		{"passive and other memories are skipped", [][]byte{passive, activeSeg(page, 1), otherMemory}, []Span{{page, 2 * page}}},
		{"the offset is unsigned", [][]byte{activeSeg(-page, 1)}, []Span{{1<<32 - page, 1 << 32}}},
		{"a global's offset ends the reading", [][]byte{activeSeg(0, 1), byGlobal, activeSeg(9*page, 1)}, []Span{{0, page}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wasm := module(section(secMemory, vec([]byte{0, 1})), section(secData, vec(tc.segs...)))
			if got := DataSpans(wasm, page); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzDataSpans: on any bytes DataSpans does not panic, and its spans are
// whole pages, in order, apart from each other.
func FuzzDataSpans(f *testing.F) {
	f.Add(module(section(secData, vec(activeSeg(0, 10), activeSeg(8000, 3)))))
	f.Add(standardBot(okImports, okMemories, okExports))
	f.Fuzz(func(t *testing.T, wasm []byte) {
		const page = 4096
		spans := DataSpans(wasm, page)
		for i, s := range spans {
			if s.Start%page != 0 || s.End%page != 0 || s.End <= s.Start {
				t.Fatalf("span %d %v is not whole pages", i, s)
			}
			if i > 0 && s.Start <= spans[i-1].End {
				t.Fatalf("spans %v and %v overlap or touch", spans[i-1], s)
			}
		}
	})
}

// dataModule is a module whose _start does nothing, with two pages of
// memory and the given data section contents.
func dataModule(extra []byte, segs ...[]byte) []byte {
	return module(
		standardTypes,
		section(secFunction, vec(u32(tVoid))),
		section(secMemory, vec([]byte{0, 2})),
		section(secExport, vec(export("_start", kindFunc, 0), export("memory", kindMemory, 0))),
		extra,
		section(secCode, vec(body(nil, end_))),
		section(secData, vec(segs...)),
	)
}

// filled is an active segment of memory 0 at offset holding n bytes of b.
func filled(offset int32, n int, b byte) []byte {
	return cat([]byte{0, 0x41}, appendS64(nil, int64(offset)), []byte{0x0b}, u32(uint32(n)), bytes.Repeat([]byte{b}, n))
}

// TestJoinedDataWritesTheSameMemory: the metered module's memory after
// instantiation is the original's, byte for byte, whether its segments were
// joined or left as they were.
func TestJoinedDataWritesTheSameMemory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		extra  []byte // a section before the code
		segs   [][]byte
		joined int // segments in the metered module
	}{
		{"in order with short gaps", nil, [][]byte{filled(0, 10, 1), filled(10, 5, 2), filled(20, 3, 3), filled(20+3+maxJoinGap, 1, 4)}, 1},
		{"a gap too wide", nil, [][]byte{filled(0, 10, 1), filled(10+maxJoinGap+1, 5, 2)}, 2},
		{"an earlier segment in the gap", nil, [][]byte{filled(12, 2, 9), filled(0, 10, 1), filled(20, 5, 2)}, 3},
		{"an earlier segment past the gap", nil, [][]byte{filled(40, 2, 9), filled(0, 10, 1), filled(20, 5, 2)}, 2},
		{"a later segment overwrites", nil, [][]byte{filled(0, 10, 1), filled(12, 8, 2), filled(4, 4, 3), filled(8, 4, 4)}, 2},
		{"out of order", nil, [][]byte{filled(100, 10, 1), filled(0, 10, 2), filled(11, 10, 3)}, 2},
		{"at the end of the memory", nil, [][]byte{filled(2<<16-20, 10, 1), filled(2<<16-8, 8, 2)}, 1},
		{"a data count section keeps them", section(secDataCount, u32(2)), [][]byte{filled(0, 10, 1), filled(10, 5, 2)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wasm := dataModule(tc.extra, tc.segs...)
			out, err := Instrument(wasm)
			if err != nil {
				t.Fatal(err)
			}
			if n := segments(t, out); n != tc.joined {
				t.Errorf("%d segments in the metered module, want %d", n, tc.joined)
			}
			want := memoryAfterStart(t, wasm, false)
			if got := memoryAfterStart(t, wasm, true); !bytes.Equal(got, want) {
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("memory differs first at byte %d: %d, want %d", i, got[i], want[i])
					}
				}
			}
		})
	}
}

// FuzzJoinedData: segments at any offsets, in any order, overlapping or
// not, leave the same memory joined as given. Each three bytes of the input
// are a segment: its offset, its length, its byte.
func FuzzJoinedData(f *testing.F) {
	f.Add([]byte{0, 10, 1, 12, 8, 2, 4, 4, 3, 8, 4, 4})
	f.Add([]byte{12, 2, 9, 0, 10, 1, 20, 5, 2})
	f.Fuzz(func(t *testing.T, spec []byte) {
		var segs [][]byte
		for i := 0; i+3 <= len(spec) && len(segs) < 64; i += 3 {
			segs = append(segs, filled(int32(spec[i]), int(spec[i+1]%48), spec[i+2]))
		}
		if len(segs) == 0 {
			return
		}
		wasm := dataModule(nil, segs...)
		if got, want := memoryAfterStart(t, wasm, true), memoryAfterStart(t, wasm, false); !bytes.Equal(got, want) {
			t.Fatalf("the metered module's memory differs from the original's")
		}
	})
}

// TestJoinedDataOutOfBoundsStillFails: a segment past the memory's end fails
// instantiation, joined to its neighbours or not.
func TestJoinedDataOutOfBoundsStillFails(t *testing.T) {
	wasm := dataModule(nil, filled(0, 10, 1), filled(2<<16-4, 8, 2), filled(10, 4, 3))
	out, err := Instrument(wasm)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	hostModules(ctx, t, rt, &tank{})
	for _, m := range [][]byte{wasm, out} {
		c, err := rt.CompileModule(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt.InstantiateModule(ctx, c, wazero.NewModuleConfig().WithName("").WithStartFunctions()); err == nil {
			t.Error("a segment out of bounds was instantiated")
		}
	}
}

// memoryAfterStart is the memory of wasm (metered or not) once instantiated.
func memoryAfterStart(t *testing.T, wasm []byte, metered bool) []byte {
	t.Helper()
	var mod api.Module
	var err error
	if metered {
		mod, err = run(t, wasm, &tank{slice: 1000, left: 1 << 40}, wazero.NewModuleConfig())
	} else {
		mod, err = runPlain(t, wasm, nil, wazero.NewModuleConfig())
	}
	if err != nil {
		t.Fatal(err)
	}
	b, ok := mod.Memory().Read(0, mod.Memory().Size())
	if !ok {
		t.Fatal("memory not readable")
	}
	return bytes.Clone(b)
}

// segments counts the data segments of a module.
func segments(t *testing.T, wasm []byte) int {
	t.Helper()
	r := &reader{b: wasm, pos: 8}
	for !r.done() {
		id, size := r.byte(), r.u32()
		content := r.bytes(int(size))
		if r.err != nil {
			t.Fatal(r.err)
		}
		if id == secData {
			return int((&reader{b: content}).u32())
		}
	}
	return 0
}
