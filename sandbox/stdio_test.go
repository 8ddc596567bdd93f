package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/arenabots/arena/internal/rng"
	"github.com/arenabots/arena/protocol"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// The answer is the first line completed after delivery, whatever the
// pieces the guest writes it in; a line over MaxLine is malformed as soon as
// it is known to be too long.
func FuzzStdoutLines(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n"), uint8(3), uint8(16))
	f.Add([]byte("no newline"), uint8(1), uint8(16))
	f.Add([]byte("\n\n\n"), uint8(0), uint8(4))
	f.Add([]byte("0123456789abcdefXYZ\nok\n"), uint8(5), uint8(16))
	f.Add([]byte("0123456789abcdef\n"), uint8(7), uint8(16))
	f.Fuzz(func(t *testing.T, out []byte, piece, maxLine uint8) {
		if maxLine == 0 {
			maxLine = 1
		}
		in := &Instance{limits: Limits{MaxLine: int(maxLine)}, tank: &Tank{}, answers: make(chan protocol.Reply, 1)}
		in.outstanding = true
		w := stdoutWriter{in}
		for rest := out; len(rest) > 0; {
			n := min(int(piece)+1, len(rest))
			if got, err := w.Write(rest[:n]); got != n || err != nil {
				t.Fatalf("Write = %d, %v", got, err)
			}
			rest = rest[n:]
		}
		var got *protocol.Reply
		select {
		case r := <-in.answers:
			got = &r
		default:
		}
		line, _, complete := bytes.Cut(out, []byte("\n"))
		switch {
		case len(line) > int(maxLine):
			if got == nil || got.Status != protocol.Malformed {
				t.Errorf("line of %d bytes (max %d): %+v", len(line), maxLine, got)
			}
		case complete:
			if got == nil || got.Status != protocol.OK || !bytes.Equal(got.Line, line) {
				t.Errorf("line %q: %+v", line, got)
			}
		default:
			if got != nil {
				t.Errorf("no complete line in %q, yet %+v", out, got)
			}
		}
	})
}

// random_get's stream does not depend on how the guest splits its reads.
func FuzzRandomStream(f *testing.F) {
	f.Add(uint64(1), []byte{3, 8, 1, 0, 13})
	f.Fuzz(func(t *testing.T, seed uint64, sizes []byte) {
		whole := &randReader{src: rng.New(seed)}
		pieces := &randReader{src: rng.New(seed)}
		var a, b []byte
		for _, s := range sizes {
			p := make([]byte, s)
			pieces.Read(p)
			b = append(b, p...)
		}
		a = make([]byte, len(b))
		whole.Read(a)
		if !bytes.Equal(a, b) {
			t.Errorf("split reads differ from one read")
		}
	})
}

// Reading stdin in the middle of a line is malformed (docs/sandbox.md),
// also when the line was begun after the previous answer: a half line
// written after the answer used to become the start of the next answer.
func TestHalfLineAfterAnswerIsMalformed(t *testing.T) {
	// The echo module answers the 3 bytes "{}\n" at 16; this writes 4,
	// "{}\nx": the answer, then the start of a line.
	wasm := wasmtest.Echo{Turn: wasmtest.Cat(wasmtest.I32(16), wasmtest.I32(0x780a7d7b), wasmtest.Store(0), wasmtest.I32(12), wasmtest.I32(4), wasmtest.Store(0))}.Module()
	in, err := testRT.Start(context.Background(), compileBytes(t, wasm), Config{Tank: bigTank()})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Stop()
	var got []string
	for range 3 {
		r := in.Ask(context.Background(), obsWithFuel(`{}`))
		got = append(got, fmt.Sprintf("%s %q", r.Status, r.Line))
	}
	want := []string{`ok "{}"`, `malformed ""`, `malformed ""`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("answers %q, want %q", got, want)
	}
}
