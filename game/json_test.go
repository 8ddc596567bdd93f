package game

import (
	"encoding/json"
	"testing"
)

func TestAddField(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1,"fuel":{"left":5}}`},
		{`{}`, `{"fuel":{"left":5}}`},
		{"{\"a\":[1,{}]}\n", `{"a":[1,{}],"fuel":{"left":5}}`},
	} {
		got := AddField([]byte(tc.in), "fuel", []byte(`{"left":5}`))
		if string(got) != tc.want || !json.Valid(got) {
			t.Errorf("AddField(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParams(t *testing.T) {
	p := Params{"cargo_cap": "900", "bad": "x"}
	if v, err := p.Int("cargo_cap", 1000); v != 900 || err != nil {
		t.Fatalf("Int = %d, %v", v, err)
	}
	if v, err := p.Int("missing", 7); v != 7 || err != nil {
		t.Fatalf("default = %d, %v", v, err)
	}
	if _, err := p.Int("bad", 0); err == nil {
		t.Fatal("a non-integer was accepted")
	}
	if err := p.CheckKnown("cargo_cap"); err == nil {
		t.Fatal(`"bad" is not a known parameter`)
	}
	if err := (Params{"cargo_cap": "1"}).CheckKnown("cargo_cap", "spawn_cost"); err != nil {
		t.Fatal(err)
	}
}
