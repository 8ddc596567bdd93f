package meter

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tetratelabs/wazero"
)

// A step is one charge of a run, in the order the code makes them: a
// segment's instructions or a bulk operation's price, and whether a check
// of the tank follows the charge.
type step struct {
	charge  int64
	checked bool
}

// expectStop is the reference model of the tank: a check stops the bot when
// what is left after the charge is below Reserve, and the charge it was
// called with is given back. It returns the fuel spent, whether the bot was
// stopped, and fails the test if the tank was ever overdrawn.
func expectStop(t *testing.T, tankSize int64, steps []step) (used int64, stopped bool) {
	live := tankSize
	for _, s := range steps {
		live -= s.charge
		if s.checked && live < Reserve {
			return tankSize - (live + s.charge), true
		}
		if live < 0 {
			t.Fatalf("the model overdraws the tank of %d: the steps are not placed as the meter places checks", tankSize)
		}
	}
	return tankSize - live, false
}

// placed turns a run of unchecked segments into steps, checked where the
// meter checks: where a segment would take the charges since the last
// check past Reserve.
func placed(acc *int64, charges ...int64) []step {
	var out []step
	for _, c := range charges {
		if *acc+c > Reserve {
			out = append(out, step{c, true})
			*acc = 0
		} else {
			out = append(out, step{c, false})
			*acc += c
		}
	}
	return out
}

func repeatBytes(b []byte, n int) []byte {
	var out []byte
	for range n {
		out = append(out, b...)
	}
	return out
}

// A bot the tank cannot carry is stopped at a check having spent exactly the
// code that ran (nothing of the segment, bulk operation or host call the
// check was for), never more than the tank. Every shape of code runs on
// tanks around each point where the outcome changes.
func TestStopIsExact(t *testing.T) {
	type shape struct {
		name  string
		wasm  []byte
		steps []step
	}
	var shapes []shape

	// countdown(100): the entry segment (2), then one checked iteration (5)
	// at a time.
	steps := []step{{2, true}}
	for range 100 {
		steps = append(steps, step{5, true})
	}
	shapes = append(shapes, shape{"loop", countdown(100), steps})

	// One straight segment of 3,000 units, more than Reserve.
	shapes = append(shapes, shape{"long segment",
		botModule([]uint32{tVoid}, body(nil, repeatBytes(cat(i32c(1), drop), 1500), end_)),
		[]step{{3000, true}}})

	// A fill of 3,200 bytes: 3 units of operands, the fill's price, then 2
	// units checked at the end of the function.
	shapes = append(shapes, shape{"bulk",
		botModule([]uint32{tVoid}, body(nil, i32c(0), i32c(0), i32c(3200), memoryFill, i32c(1), drop, end_)),
		[]step{{3, true}, {BulkPrice + 3200/BulkBytesPerUnit, true}, {2, true}}})

	// An if whose arms cost 10 and 2 units, unchecked; the function's end
	// checks what they charged (a check for no new charge).
	for _, cond := range []int32{0, 1} {
		arm := int64(2)
		if cond == 1 {
			arm = 10
		}
		shapes = append(shapes, shape{fmt.Sprintf("if %d", cond),
			botModule([]uint32{tVoid}, body(nil, i32c(cond), []byte{0x04, 0x40},
				repeatBytes(cat(i32c(1), drop), 5), []byte{0x05}, i32c(1), drop, end_, end_)),
			[]step{{2, true}, {arm, false}, {0, true}}})
	}

	// 1,200 blocks of 2 units each: a segment each, checked every 500.
	var acc int64
	steps = []step{{2, true}}
	var two []int64
	for range 1199 {
		two = append(two, 2)
	}
	steps = append(steps, placed(&acc, two...)...)
	steps = append(steps, step{0, true})
	shapes = append(shapes, shape{"blocks",
		botModule([]uint32{tVoid}, body(nil, repeatBytes(cat(block_, i32c(1), drop, end_), 1200), end_)),
		steps})

	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			// The tanks where a check's outcome changes, one either side,
			// and a few in between.
			sizes := map[int64]bool{0: true, Reserve: true}
			var spent int64
			for _, s := range sh.steps {
				spent += s.charge
				if s.checked {
					for d := int64(-1); d <= 1; d++ {
						sizes[spent+Reserve+d] = true
					}
				}
			}
			for size := int64(0); size < spent+Reserve+10; size += spent/7 + 1 {
				sizes[size] = true
			}
			for size := range sizes {
				if size < 0 {
					continue
				}
				wantUsed, wantStopped := expectStop(t, size, sh.steps)
				tk := &tank{slice: 1_000_000, left: size}
				mod, err := run(t, sh.wasm, tk, wazero.NewModuleConfig())
				stopped := errors.Is(err, errOutOfFuel)
				if err != nil && !stopped {
					t.Fatalf("tank %d: %v", size, err)
				}
				if got := tk.used(mod); got != wantUsed || stopped != wantStopped {
					t.Errorf("tank %d: used %d, stopped %v; want %d, %v", size, got, stopped, wantUsed, wantStopped)
				}
			}
		})
	}
}
