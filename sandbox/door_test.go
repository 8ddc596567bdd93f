package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/sandbox/meter"
	. "github.com/arenabots/arena/sandbox/wasmtest"
)

// Modules at and just past every limit at the door: past it, Compile
// refuses with a message naming the limit and the value; at it, the module
// compiles in bounded time and plays. Every compile here runs in the child
// process, whose time and memory are limited too.
func TestDoorLimits(t *testing.T) {
	half := func(n uint32) (uint32, uint32) { return n / 2, n - n/2 }
	l1, l2 := half(meter.MaxLocals)
	o1, o2 := half(1 << 31)
	body := Cat(I32(0), Drop)
	cases := []struct {
		name string
		mod  Echo
		want string // a part of the refusal; "" for a module that must play
	}{
		{"locals at the limit", Echo{TurnLocals: l1 - 1, TurnLocals2: l2}, ""},
		{"two billion locals", Echo{TurnLocals: o1, TurnLocals2: o2}, "the number of locals of function 7 (parameters included) is 2147483648, more than the limit of 50000"},
		{"nesting at the limit", Echo{Turn: Cat(Repeat(Block, meter.MaxNesting-1), Repeat(End, meter.MaxNesting-1))}, ""},
		{"nesting past the limit", Echo{Turn: Cat(Repeat(Block, 100_000), Repeat(End, 100_000))}, "the nesting depth of blocks, loops and ifs is 1025, more than the limit of 1024"},
		{"br_table at the limit", Echo{Turn: Cat(Block, I32(0), BrTable(meter.MaxBrTableTargets), End)}, ""},
		{"br_table past the limit", Echo{Turn: Cat(Block, I32(0), BrTable(meter.MaxBrTableTargets+1), End)}, "the number of targets of a br_table is 65537, more than the limit of 65536"},
		{"a function body past the limit", Echo{Turn: Repeat(body, meter.MaxFunctionBody/2)}, "the size of the body of function 7 (bytes) is 786434, more than the limit of 524288"},
		{"functions past the limit", Echo{ExtraFuncs: meter.MaxFunctions}, "the number of functions is 100008, more than the limit of 100000"},
		{"types past the limit", Echo{Types: meter.MaxTypes}, "the number of function types is 10004, more than the limit of 10000"},
		{"globals at the limit", Echo{Globals: meter.MaxGlobals}, ""},
		{"globals past the limit", Echo{Globals: meter.MaxGlobals + 1}, "the number of globals is 10001, more than the limit of 10000"},
		{"exports past the limit", Echo{Exports: meter.MaxExports}, "the number of exports is 10002, more than the limit of 10000"},
		{"data segments past the limit", Echo{DataSegs: meter.MaxDataSegments}, "the declared number of data segments is 100001, more than the limit of 100000"},
		{"element segments past the limit", Echo{Table: true, ElemSegs: meter.MaxElemSegments + 1}, "the number of element segments is 100001, more than the limit of 100000"},
		{"a table at the limit", Echo{Table: true, TableMin: meter.MaxTableElements}, ""},
		{"a table past the limit", Echo{Table: true, TableMin: 1 << 30}, "the initial size of the tables (elements, all tables together) is 1073741824, more than the limit of 1048576"},
		{"memory past the limit", Echo{MinPages: meter.MaxMemoryPages + 1}, "the initial size of the linear memory (64 KiB pages) is 3969, more than the limit of 3968"},
		{"memory at the limit", Echo{MinPages: meter.MaxMemoryPages}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wasm := c.mod.Module()
			start := time.Now()
			m, err := testRT.Compile(context.Background(), wasm)
			t.Logf("%d bytes, compiled in %v", len(wasm), time.Since(start))
			if c.want != "" {
				if err == nil || !IsRefused(err) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("err = %v, want a refusal containing %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rs := play(t, supervised(m, protocolTank, &bot.Log{}), repeat(`{}`, 3)...)
			if got := statuses(rs); got != "ok ok ok" {
				t.Errorf("statuses %q\n%+v", got, rs)
			}
		})
	}
}

// A small valid module that wazero's compiler cannot compile in reasonable
// time (its dominator pass is quadratic in the blocks of a function: 8,000
// empty ifs take 12 s) is refused when the child process runs out of its
// CPU time, and the host is none the worse.
func TestCompileBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("spends the child's whole CPU time limit")
	}
	wasm := Echo{Turn: Repeat(Cat(I32(0), If, End), 40_000)}.Module()
	start := time.Now()
	var err error
	grew := peakRSS(func() { _, err = testRT.CompileWith(context.Background(), wasm, CompileOptions{Upload: true}) })
	if err == nil || !IsRefused(err) || !strings.Contains(err.Error(), "compiling it takes more than") {
		t.Fatalf("%d bytes: err = %v, want a refusal for the time it takes", len(wasm), err)
	}
	if grew > 100<<20 {
		t.Errorf("the host grew by %d MiB", grew>>20)
	}
	t.Logf("%d bytes refused in %v: %v", len(wasm), time.Since(start), err)
}
