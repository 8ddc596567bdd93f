package meter

import (
	"context"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero"
)

// FuzzInstrument: Instrument never panics, refuses only with *Error, its
// output is a well-formed module that Instrument itself recognises as
// metered, and whatever wazero compiles before the pass it compiles after.
func FuzzInstrument(f *testing.F) {
	f.Add(countdown(3))
	f.Add(shiftModule(3))
	f.Add(standardBot(okImports, okMemories, okExports))
	for _, m := range featureModules {
		f.Add(m.wasm)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	compiles := func(wasm []byte) error {
		c, err := rt.CompileModule(ctx, wasm)
		if err == nil {
			c.Close(ctx)
		}
		return err
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Instrument(in)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not a *meter.Error: %v", err, err)
			}
			return
		}
		if err := checkFraming(out); err != nil {
			t.Fatalf("output does not parse: %v", err)
		}
		// A second pass parses up to the import section and stops there.
		if _, err := Instrument(out); err == nil || !matches(err.Error(), `import "arena_meter"."refill" is not allowed: ...`) {
			t.Fatalf("instrumenting the output again: %v", err)
		}
		if compiles(in) == nil {
			if err := compiles(out); err != nil {
				t.Fatalf("wazero compiles the input but not the output: %v", err)
			}
		}
	})
}

// checkFraming walks the sections of a module and their sizes.
func checkFraming(wasm []byte) error {
	if err := checkHeader(wasm); err != nil {
		return err
	}
	r := &reader{b: wasm, pos: 8}
	for !r.done() && r.err == nil {
		r.byte()
		r.bytes(int(r.u32()))
	}
	return r.err
}
