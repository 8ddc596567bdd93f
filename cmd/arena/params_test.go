package main

import (
	"errors"
	"strings"
	"testing"
)

// fakeFile serves @NAME values without touching the disk.
func fakeFile(path string) ([]byte, error) {
	if path == "missing" {
		return nil, errors.New("no such file")
	}
	return []byte("<" + path + ">"), nil
}

func TestParseParams(t *testing.T) {
	p, err := parseParamsWith([]string{"rows=5", "board=@b.txt", "empty=", "eq=a=b"}, fakeFile)
	if err != nil || len(p) != 4 || p["rows"] != "5" || p["board"] != "<b.txt>" || p["empty"] != "" || p["eq"] != "a=b" {
		t.Fatalf("%v, %v", p, err)
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"rows"}, "want NAME=VALUE"},
		{[]string{"=5"}, "want NAME=VALUE"},
		{[]string{"rows=5", "rows=5"}, "given twice"},
		{[]string{"board=@missing"}, "parameter board: no such file"},
	} {
		if _, err := parseParamsWith(tc.flags, fakeFile); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.flags, err, tc.want)
		}
	}
	var ue usageError
	if _, err := parseParamsWith([]string{"rows"}, fakeFile); !errors.As(err, &ue) {
		t.Error("a flag without = is not a usage error")
	}
}

// FuzzParseParams checks that any flags parse or fail without a panic, and
// that a success keeps every flag's value under its name, each name once.
func FuzzParseParams(f *testing.F) {
	f.Add("rows=5\ncols=6")
	f.Add("board=@x\nboard=y")
	f.Add("=\n==\na=@")
	f.Fuzz(func(t *testing.T, s string) {
		flags := strings.Split(s, "\n")
		p, err := parseParamsWith(flags, fakeFile)
		if err != nil {
			return
		}
		if len(p) != len(flags) {
			t.Fatalf("%d flags, %d parameters", len(flags), len(p))
		}
		for _, fl := range flags {
			k, v, _ := strings.Cut(fl, "=")
			if file, ok := strings.CutPrefix(v, "@"); ok {
				v = "<" + file + ">"
			}
			if p[k] != v {
				t.Fatalf("%q: %q = %q", fl, k, p[k])
			}
		}
	})
}
