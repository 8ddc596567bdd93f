package sdk

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

type obs struct {
	You  int   `json:"you"`
	N    []int `json:"n"`
	Fuel Fuel  `json:"fuel"`
}

type action struct {
	Seat int `json:"seat"`
	Sum  int `json:"sum"`
	Left int64
}

func sum(o obs) action {
	a := action{Seat: o.You, Left: o.Fuel.Left}
	for _, n := range o.N {
		a.Sum += n
	}
	return a
}

func TestLoop(t *testing.T) {
	long := `{"you":1,"n":[` + strings.Repeat("1,", 100_000) + `1]}`
	tests := []struct {
		name, in, want string
	}{
		{"empty input", "", ""},
		{"one line", `{"you":1,"n":[2,3]}` + "\n", `{"seat":1,"sum":5,"Left":0}` + "\n"},
		{"unknown fields and fuel", `{"you":0,"x":{"y":[1]},"n":[],"fuel":{"left":7,"per_turn":5,"cap":20}}` + "\n",
			`{"seat":0,"sum":0,"Left":7}` + "\n"},
		{"no final newline", `{"you":1}`, `{"seat":1,"sum":0,"Left":0}` + "\n"},
		{"crlf", "{\"you\":1}\r\n", `{"seat":1,"sum":0,"Left":0}` + "\n"},
		{"bad line keeps step", "nonsense\n{\"you\":1,\"n\":[1]}\n", "{}\n" + `{"seat":1,"sum":1,"Left":0}` + "\n"},
		{"line longer than the buffer", long + "\n", `{"seat":1,"sum":100001,"Left":0}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := Loop(strings.NewReader(tt.in), &out, sum); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("got %q, want %q", out.String(), tt.want)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, bytes.ErrTooLarge }

func TestLoopWriteError(t *testing.T) {
	err := Loop(strings.NewReader("{}\n"), failWriter{}, sum)
	if err == nil || !strings.Contains(err.Error(), "writing an answer") {
		t.Fatalf("got %v, want a write error", err)
	}
}

func TestFuelLeftNative(t *testing.T) {
	if got := FuelLeft(); got != -1 {
		t.Errorf("FuelLeft() = %d natively, want -1", got)
	}
}

// FuzzLoopLines checks the loop's one promise on any input: exactly one
// answer line per observation line, each line handed over without its end.
func FuzzLoopLines(f *testing.F) {
	for _, s := range []string{"", "\n", "{}\n{}", "a\r\nb\n\n", strings.Repeat("x", 70_000) + "\ny"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		lines := bytes.Count(in, []byte("\n"))
		if len(in) > 0 && in[len(in)-1] != '\n' {
			lines++
		}
		var out bytes.Buffer
		err := LoopLines(bytes.NewReader(in), &out, func(line []byte) []byte {
			if bytes.ContainsRune(line, '\n') {
				t.Errorf("line %q holds a newline", line)
			}
			return []byte("ok")
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(out.String(), "ok\n"); got != lines || out.Len() != 3*lines {
			t.Errorf("%d answers (%d bytes) for %d lines", got, out.Len(), lines)
		}
	})
}

func TestIndexNewline(t *testing.T) {
	for n := range 40 {
		for at := -1; at < n; at++ {
			b := bytes.Repeat([]byte{'x' ^ 0x80}, n) // high bits set: the word test must not be fooled
			if at >= 0 {
				b[at] = '\n'
				if at+1 < n {
					b[at+1] = '\n'
				}
			}
			if got := indexNewline(b); got != at {
				t.Fatalf("%q: got %d, want %d", b, got, at)
			}
		}
	}
}

// The reader's rule for junk, which the C and Rust readers share: a scalar
// runs to the next white space or , : ] }, so in [1[2],3] the scalar 1[2
// holds a bracket that does not count, and the array ends at the first ].
func TestJSONScalarRunsToStop(t *testing.T) {
	j := JSON(`[1[2],3]`)
	if got := j.Ints(nil); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("Ints %v, want [1 2]", got)
	}
	if n := len(j.Elems()); n != 1 {
		t.Errorf("%d elements, want 1 (1[2)", n)
	}
}

// LoopLines reads lines however the reader splits them: a byte at a time,
// with the last data and io.EOF together, and across its buffer's growth.
func TestLoopLinesReaders(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	in := "a\r\n\nbc\n" + long + "\nlast"
	want := []string{"a", "", "bc", long, "last"}
	for name, r := range map[string]func() io.Reader{
		"one byte":   func() io.Reader { return iotest.OneByteReader(strings.NewReader(in)) },
		"data error": func() io.Reader { return iotest.DataErrReader(strings.NewReader(in)) },
		"half":       func() io.Reader { return iotest.HalfReader(strings.NewReader(in)) },
	} {
		var got []string
		var out bytes.Buffer
		err := LoopLines(r(), &out, func(line []byte) []byte {
			got = append(got, string(line))
			return []byte("ok")
		})
		if err != nil || !slices.Equal(got, want) || out.String() != strings.Repeat("ok\n", len(want)) {
			t.Errorf("%s: %v, %d lines, out %q", name, err, len(got), out.String())
		}
	}
	err := LoopLines(iotest.ErrReader(io.ErrUnexpectedEOF), io.Discard, func([]byte) []byte { return nil })
	if err == nil || !strings.Contains(err.Error(), "reading an observation") {
		t.Errorf("a failing reader: %v", err)
	}
}
