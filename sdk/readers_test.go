package sdk

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// probeKeys are the fields every probe reads, in this order (see
// c/testdata/probe.c and rust/testdata/probe.rs).
var probeKeys = []string{"a", "b", "ore", "units", "x"}

// probe is what the Go reader makes of one document, in the probes' format.
func probe(doc []byte) string {
	var out strings.Builder
	for _, k := range probeKeys {
		v := JSON(doc).Get(k)
		elems := v.Elems()
		n := len(elems)
		if elems == nil {
			n = -1
		}
		fmt.Fprintf(&out, "%s found=%d int=%d elems=%d ints=%s x=", k, boolInt(v != nil), v.Int(), n, join(v.Ints(nil)))
		xs := make([]int, 0, len(elems))
		for _, e := range elems {
			xs = append(xs, e.Get("x").Int())
		}
		out.WriteString(join(xs) + "\n")
	}
	return out.String()
}

func join(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// randomValue writes a random JSON value that uses the probe keys, the way
// observations do: integers, booleans, null, strings with escapes, nested
// arrays and objects, and random white space within the line.
func randomValue(r *rand.Rand, b *bytes.Buffer, depth int) {
	space := func() {
		if r.IntN(4) == 0 {
			b.WriteString([]string{" ", "\t", "  "}[r.IntN(3)]) // never a newline: one document a line
		}
	}
	space()
	switch k := r.IntN(10); {
	case depth < 4 && k < 3:
		b.WriteByte('[')
		for i := range r.IntN(6) {
			if i > 0 {
				b.WriteByte(',')
			}
			randomValue(r, b, depth+1)
		}
		b.WriteByte(']')
	case depth < 4 && k < 5:
		randomObject(r, b, depth+1)
	case k < 8:
		b.WriteString(strconv.Itoa(r.IntN(200001) - 100000))
	default:
		b.WriteString([]string{"true", "false", "null", `"s"`, `"a\"b"`, `"\\"`, `"x:1,[2]"`}[r.IntN(7)])
	}
	space()
}

func randomObject(r *rand.Rand, b *bytes.Buffer, depth int) {
	b.WriteByte('{')
	for i := range r.IntN(6) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, "%q:", append(probeKeys, "other", "ax")[r.IntN(len(probeKeys)+2)])
		randomValue(r, b, depth)
	}
	b.WriteByte('}')
}

// TestReadersAgree checks that the three SDK readers, Go's JSON, C's arena.h
// and Rust's arena.rs, read the same values out of the same documents, so a
// kit ported from one language to another reads the same observation.
// Each reader's own edge cases are in its own tests; this one compares them
// over hand-picked and random well-formed documents.
func TestReadersAgree(t *testing.T) {
	docs := []string{
		`{"a":1,"b":[true,false,null,-3],"ore":[[0,12],[-3,4000]],"units":[{"id":1,"x":9},{"x":-2}],"x":"7"}`,
		`{"x":{"a":5},"a":{"x":6},"units":[],"ore":[]}`,
		`{ "a" : "1" , "b" : [ "t", 2, "3" ] , "x" : -0 }`,
		`{"a":1,"a":2}`,
		`{}`,
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		var b bytes.Buffer
		randomObject(r, &b, 0)
		docs = append(docs, b.String())
	}
	compareProbes(t, docs, true)
}

// TestCReaderBrokenInput feeds arena.h every prefix of some documents (cut
// JSON, as a bot would see from a broken line) under the address and
// undefined-behaviour sanitizers: it must not read out of bounds or hang,
// and must find what Go's reader finds.
func TestCReaderBrokenInput(t *testing.T) {
	var docs []string
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		var b bytes.Buffer
		randomObject(r, &b, 0)
		for n := range b.Len() {
			docs = append(docs, b.String()[:n])
		}
	}
	docs = append(docs, `{"a":[-]}`, `{"a":[tru]}`, `{"a":[1 2]}`, `{"a":[}`, `{"a":"\`, `{"a" 1}`)
	compareProbes(t, docs, false)
}

// compareProbes builds the probes and checks they print what the Go reader
// reads from docs, one document a line. The Rust probe parses documents
// fully and refuses broken ones, so only valid input goes to it.
func compareProbes(t *testing.T, docs []string, valid bool) {
	t.Helper()
	input := strings.Join(docs, "\n") + "\n"
	var want strings.Builder
	for _, d := range docs {
		want.WriteString(probe([]byte(d)))
	}

	dir := t.TempDir()
	probes := []struct {
		name, tool string
		build      []string
	}{
		{"c", "clang", []string{"clang", "-O1", "-Wall", "-Werror", "-fsanitize=address,undefined",
			"-fno-sanitize-recover=all", "-o", filepath.Join(dir, "c-probe"), "c/testdata/probe.c"}},
		{"rust", "/usr/bin/rustc", []string{"/usr/bin/rustc", "--edition", "2021", "-O", "-o", filepath.Join(dir, "rust-probe"), "rust/testdata/probe.rs"}},
	}
	for _, p := range probes {
		if !valid && p.name == "rust" {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			if _, err := exec.LookPath(p.tool); err != nil {
				t.Fatalf("%s is not installed: run scripts/install-toolchains.sh as root", p.tool)
			}
			if out, err := exec.Command(p.build[0], p.build[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(p.build, " "), err, out)
			}
			cmd := exec.Command(filepath.Join(dir, p.name+"-probe"))
			cmd.Stdin = strings.NewReader(input)
			cmd.Stderr = os.Stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
			for i := range wantLines {
				if i >= len(gotLines) || gotLines[i] != wantLines[i] {
					doc := docs[min(i/len(probeKeys), len(docs)-1)]
					t.Fatalf("document %s\n%s reads %q\nGo reads %q", doc, p.name, gotLines[min(i, len(gotLines)-1)], wantLines[i])
				}
			}
		})
	}
}
