package sdk

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

const sample = ` { "turn": 41, "nested": {"turn": 7, "x": [1]}, "ore": [[0, 12], [-3, 4000]],
	"flags": [true, false, null], "name": "a\"b\\c", "units": [{"id": 12, "x": 9}, {"id": 15, "x": -1}],
	"empty": [], "obj": {} } `

func TestJSONGet(t *testing.T) {
	j := JSON(sample)
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"number", j.Get("turn").Int(), 41},
		{"own field, not the nested one", j.Get("nested").Get("turn").Int(), 7},
		{"board row by row", j.Get("ore").Ints(nil), []int{0, 12, -3, 4000}},
		{"booleans and null", j.Get("flags").Ints(nil), []int{1, 0, 0}},
		{"appends", j.Get("flags").Ints([]int{9}), []int{9, 1, 0, 0}},
		{"bool", j.Get("flags").Elems()[0].Bool(), true},
		{"string", j.Get("name").Str(), `a"b\c`},
		{"objects in an array", j.Get("units").Elems()[1].Get("x").Int(), -1},
		{"array length", len(j.Get("units").Elems()), 2},
		{"empty array", len(j.Get("empty").Elems()), 0},
		{"empty object", j.Get("obj").Get("x") == nil, true},
		{"missing field", j.Get("nope") == nil, true},
		{"missing field reads as zero", j.Get("nope").Int(), 0},
		{"not an object", j.Get("turn").Get("x") == nil, true},
		{"not an array", j.Get("turn").Elems() == nil, true},
		{"not a string", j.Get("turn").Str(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if g, w := tt.got, tt.want; !equal(g, w) {
				t.Errorf("got %v, want %v", g, w)
			}
		})
	}
}

func equal(a, b any) bool {
	as, ok1 := a.([]int)
	bs, ok2 := b.([]int)
	if ok1 && ok2 {
		return slices.Equal(as, bs)
	}
	return a == b
}

func TestJSONBroken(t *testing.T) {
	for _, s := range []string{"", "{", `{"a"`, `{"a":`, `{"a":}`, `{"a":1,}`, `[1,`, `[1 2`, `"abc`, `}`, `]]]`, `{"a":"\`, `[`} {
		j := JSON(s)
		// Nothing may panic; a field of a broken object is not found.
		if v := j.Get("a"); v != nil && s != `{"a":1,}` {
			t.Errorf("%q: Get found %q", s, v)
		}
		j.Elems()
		j.Ints(nil)
		j.Int()
		j.Str()
	}
}

func TestRunJSONObservation(t *testing.T) {
	in := `{"ore":[[1,2],[3,4]]}` + "\n" + `{"ore":[[5]]}` + "\n"
	var out bytes.Buffer
	var kept []JSON
	err := Loop(bytes.NewReader([]byte(in)), &out, func(obs JSON) int {
		kept = append(kept, obs)
		s := 0
		for _, v := range obs.Get("ore").Ints(nil) {
			s += v
		}
		return s
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "10\n5\n" {
		t.Errorf("got %q", out.String())
	}
	// An observation stays valid after its turn.
	if string(kept[0]) != `{"ore":[[1,2],[3,4]]}` {
		t.Errorf("the first observation became %q", kept[0])
	}
}

// FuzzJSON checks the lazy reader against encoding/json: on valid JSON every
// top-level integer field and every array of integers reads the same, and
// no input makes it panic.
func FuzzJSON(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"a":[1,[2,[3]]],"b":-7,"c":"x"}`))
	f.Add([]byte(`{"a":{"a":{"a":1}}}`))
	f.Add([]byte(`[[[[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j := JSON(data)
		for _, e := range j.Elems() {
			e.Int()
			e.Ints(nil)
		}
		var fields map[string]any
		if json.Unmarshal(data, &fields) != nil {
			j.Get("a").Ints(nil)
			return
		}
		for k, v := range fields {
			if bytes.Count(data, []byte(`"`+k+`"`)) != 1 || bytes.Contains(data, []byte(`\`)) {
				// A repeated key (encoding/json keeps the last, Get finds
				// the first) or escapes that may spell one: not comparable.
				continue
			}
			got := j.Get(k)
			if got == nil {
				t.Errorf("field %q not found", k)
				continue
			}
			switch v := v.(type) {
			case float64:
				if v == float64(int(v)) && v > -1e15 && v < 1e15 && !bytes.ContainsAny(got, ".eE") && got.Int() != int(v) {
					t.Errorf("field %q: got %d, want %v", k, got.Int(), v)
				}
			case []any:
				if len(got.Elems()) != len(v) {
					t.Errorf("field %q: %d elements, want %d", k, len(got.Elems()), len(v))
				}
			}
		}
	})
}
