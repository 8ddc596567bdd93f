package game

import (
	"encoding/json"
	"strings"
	"testing"
)

type inner struct {
	ID int64  `json:"id"`
	Do string `json:"do"`
}

type outer struct {
	Name  string   `json:"name"`
	N     int      `json:"n"`
	Small int8     `json:"small"`
	F     float64  `json:"f"`
	On    bool     `json:"on"`
	List  []inner  `json:"list"`
	Grid  [][]bool `json:"grid"`
	Opt   *int     `json:"opt,omitempty"`
	Skip  int      `json:"-"`
}

const good = `{"name":"a\"b\u00e9","n":-3,"small":7,"f":1.5e3,"on":true,"list":[{"id":1,"do":"X"},{"do":"Y","id":2}],"grid":[[true,false],[]]}`

func TestDecodeReadsWhatEncodingJSONWrites(t *testing.T) {
	var o outer
	if err := Decode([]byte(" \n"+good+"\t "), &o); err != nil {
		t.Fatal(err)
	}
	if o.Name != "a\"bé" || o.N != -3 || o.Small != 7 || o.F != 1500 || !o.On || len(o.List) != 2 || o.List[1].ID != 2 || o.Opt != nil {
		t.Fatalf("%+v", o)
	}
	five := 5
	o.Opt = &five
	back, _ := json.Marshal(o)
	var again outer
	if err := Decode(back, &again); err != nil {
		t.Fatalf("%s: %v", back, err)
	}
	if b2, _ := json.Marshal(again); string(b2) != string(back) {
		t.Fatalf("round trip:\n%s\n%s", back, b2)
	}
}

// Each row is one rule of docs/bots.md's table of what is malformed.
func TestDecodeIsStrict(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{`not json`, "invalid character"},
		{``, "unexpected end"},
		{`[]`, "want an object"},
		{`null`, "the value is null"},
		{strings.Replace(good, `"name"`, `"Name"`, 1), `has no field "name"`},
		{strings.Replace(good, `"n":-3`, `"n":null`, 1), `"n" is null`},
		{strings.Replace(good, `"on":true`, `"on":true,"opt":null`, 1), `"opt" is null`},
		{strings.Replace(good, `{"id":1,`, `null,{"id":1,`, 1), `"list"[0] is null`},
		{strings.Replace(good, `"n":-3`, `"n":"-3"`, 1), `"n" is "-3"; want an integer`},
		{strings.Replace(good, `"n":-3`, `"n":1.0`, 1), `want an integer`},
		{strings.Replace(good, `"n":-3`, `"n":1e2`, 1), `want an integer`},
		{strings.Replace(good, `"small":7`, `"small":300`, 1), `fits 8 bits`},
		{strings.Replace(good, `"n":-3`, `"n":-3,"n":4`, 1), `the field "n" twice`},
		{strings.Replace(good, `"on":true`, `"on":1`, 1), `want true or false`},
		{strings.Replace(good, `"grid":[[true,false],[]]`, `"grid":[[true,0]]`, 1), `"grid"[0][1] is 0`},
		{good + ` {}`, "after top-level value"},
		{strings.Replace(good, `{"id":1,"do":"X"}`, `{"id":1}`, 1), `"list"[0] has no field "do"`},
	} {
		var o outer
		err := Decode([]byte(tc.in), &o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Decode(%s): %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestDecodeIgnoresUnknownFields(t *testing.T) {
	in := strings.Replace(good, `"n":-3`, `"n":-3,"extra":{"deep":[1,{"x":null}],"s":"}]"},"Extra2":null,"z":-1.5e-3`, 1)
	var o outer
	if err := Decode([]byte(in), &o); err != nil || o.N != -3 || o.Small != 7 {
		t.Fatalf("%v %+v", err, o)
	}
}

// FuzzDecode: whatever the input, Decode returns or errs, and what it
// accepts, encoding/json accepts too with the same meaning.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(`{"list":[{"id":1,"do":"\ud800"}],"x":[[[[]]]]}`))
	f.Add([]byte(`{"name":"","n":0,"small":0,"f":0,"on":false,"list":[],"grid":[],"opt":5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var o outer
		if err := Decode(data, &o); err != nil {
			return
		}
		var lenient outer
		if err := json.Unmarshal(data, &lenient); err != nil {
			t.Fatalf("strict accepted what encoding/json refuses: %v", err)
		}
		a, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var again outer
		if err := Decode(a, &again); err != nil {
			t.Fatalf("strict refuses its own result re-encoded: %v\n%s", err, a)
		}
		if b, _ := json.Marshal(again); string(b) != string(a) {
			t.Fatalf("round trip changed the value:\n%s\n%s", a, b)
		}
	})
}
