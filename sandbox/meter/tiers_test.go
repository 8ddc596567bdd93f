package meter

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tetratelabs/wazero"
)

// withPages is botModule with a memory of the given initial size.
func withPages(pages uint32, m []byte) []byte {
	old := section(secMemory, vec([]byte{0, 1}))
	i := bytes.Index(m, old)
	if i < 0 {
		panic("memory section not found")
	}
	return cat(m[:i], section(secMemory, vec(cat([]byte{0}, u32(pages)))), m[i+len(old):])
}

var (
	i32Load  = []byte{0x28, 2, 0}
	i32Store = []byte{0x36, 2, 0}
	grow     = []byte{0x40, 0}
)

// accesses: ten loads (i32.const; i32.load; drop: 3 units and one access
// each), a store (3 units, one access), a memory.fill of 16 bytes (3
// constants, then 8 + 16/8 and one access) and a memory.copy of 0 bytes (3
// constants, then 8 and two accesses): 57 units and 14 accesses.
func accesses() []byte {
	return cat(
		bytes.Repeat(cat(i32c(64), i32Load, drop), 10),
		i32c(64), i32c(7), i32Store,
		i32c(128), i32c(7), i32c(16), memoryFill,
		i32c(128), i32c(256), i32c(0), memoryCopy)
}

const accessUnits, accessCount = 30 + 3 + 13 + 11, 14

// Every memory access pays the surcharge of its memory's size, exactly: at
// both edges of every tier.
func TestAccessPriceByTier(t *testing.T) {
	for _, dear := range []bool{false, true} {
		sizes := []uint32{1}
		tiers := turnTiers
		if dear {
			tiers = dearTiers
		}
		for _, tier := range tiers {
			sizes = append(sizes, uint32(tier.Above), uint32(tier.Above)+1)
		}
		for _, pages := range sizes {
			if pages > MaxMemoryPages {
				continue
			}
			t.Run(fmt.Sprintf("%d pages, dear %v", pages, dear), func(t *testing.T) {
				testAccessPrice(t, pages, dear)
			})
		}
	}
}

func testAccessPrice(t *testing.T, pages uint32, dear bool) {
	{
		{
			wasm := withPages(pages, botModule([]uint32{tVoid}, body(nil, accesses(), end_)))
			tk := &tank{slice: 1 << 30, left: 1 << 40, dear: dear}
			mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
			if err != nil {
				t.Fatal(err)
			}
			p := AccessPrice(uint64(pages), dear)
			if got, want := tk.used(mod), int64(accessUnits)+accessCount*p; got != want {
				t.Errorf("used %d fuel, want %d (surcharge %d)", got, want, p)
			}
		}
	}
}

// The prices themselves: zero for a memory that fits in the caches, and
// rising with the size.
func TestAccessTiers(t *testing.T) {
	if AccessPrice(2, true) != 0 || AccessPrice(8, false) != 0 {
		t.Errorf("a memory of 128 KiB pays a surcharge of %d at start-up, of 512 KiB %d in a turn", AccessPrice(2, true), AccessPrice(8, false))
	}
	var last, lastDear int64
	for pages := uint64(1); pages <= MaxMemoryPages; pages++ {
		p, d := AccessPrice(pages, false), AccessPrice(pages, true)
		if p < last || d < lastDear {
			t.Fatalf("the surcharge falls at %d pages", pages)
		}
		if d < p {
			t.Errorf("at %d pages an access costs %d in a turn and %d when dear", pages, p+1, d+1)
		}
		last, lastDear = p, d
	}
	if got, dear := AccessPrice(MaxMemoryPages, false), AccessPrice(MaxMemoryPages, true); got != 25 || dear != 128 {
		t.Errorf("surcharges at the cap are %d and %d, want 25 and 128", got, dear)
	}
}

// A memory.grow that crosses into a dearer tier raises the price from the
// next access on: the accesses before it pay the old price, those after it
// the new one, and the grow itself its pages.
func TestGrowChangesThePrice(t *testing.T) {
	for _, tc := range []struct{ from, by uint32 }{{1, 1}, {2, 1}, {1, 40}, {16, 500}, {500, 1600}, {2, 0}} {
		t.Run(fmt.Sprintf("%d+%d", tc.from, tc.by), func(t *testing.T) {
			code := cat(accesses(), i32c(int32(tc.by)), grow, drop, accesses(), end_)
			wasm := withPages(tc.from, botModule([]uint32{tVoid}, body(nil, code)))
			tk := &tank{slice: 1 << 30, left: 1 << 40}
			mod, err := run(t, wasm, tk, wazero.NewModuleConfig())
			if err != nil {
				t.Fatal(err)
			}
			before, after := AccessPrice(uint64(tc.from), false), AccessPrice(uint64(tc.from+tc.by), false)
			want := 2*int64(accessUnits) + accessCount*(before+after) +
				1 + GrowPrice + int64(tc.by)*GrowPagePrice + 1 // i32.const, grow, drop
			if got := tk.used(mod); got != want {
				t.Errorf("used %d fuel, want %d (surcharge %d, then %d)", got, want, before, after)
			}
		})
	}
}

// Every memory.grow is followed by a call of the host (refill with a
// charge of 0), whatever the counter holds, so that the host can hold back
// the reserve at the new price, or stop the bot there.
func TestGrowCallsTheHost(t *testing.T) {
	for _, tc := range []struct {
		code    []byte
		refills int
	}{
		{cat(accesses(), end_), 1}, // the entry's only (the counter starts below zero)
		{cat(i32c(1), grow, drop, accesses(), end_), 2},
		{cat(i32c(1), grow, drop, i32c(0), grow, drop, accesses(), end_), 3},
	} {
		tk := &tank{slice: 1 << 30, left: 1 << 40}
		if _, err := run(t, withPages(1, botModule([]uint32{tVoid}, body(nil, tc.code))), tk, wazero.NewModuleConfig()); err != nil {
			t.Fatal(err)
		}
		if tk.refills != tc.refills {
			t.Errorf("%d refills, want %d", tk.refills, tc.refills)
		}
	}
}

// The export names of the meter's globals are the meter's: a module may
// not export them.
func TestMeterExportsAreReserved(t *testing.T) {
	for _, name := range reservedExports {
		m := module(standardTypes,
			section(secFunction, vec(u32(tVoid))),
			section(secMemory, vec([]byte{0, 1})),
			section(secExport, vec(export("_start", kindFunc, 0), export("memory", kindMemory, 0), export(name, kindMemory, 0))),
			section(secCode, vec(body(nil, end_))))
		_, err := Instrument(m)
		if want := `export "` + name + `" is not allowed: the name is reserved for the fuel meter; rename or drop the export`; err == nil || err.Error() != want {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
