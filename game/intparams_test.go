package game

import (
	"slices"
	"strings"
	"testing"
)

type board struct{ Side, Turns int }

var boardParams = IntParams[board]{
	{Name: "side", Doc: "odd side", Min: 5, Max: 9, Odd: true, Label: "Side", Field: func(b *board) *int { return &b.Side }},
	{Name: "turns", Doc: "turns", Min: 1, Max: 100, Field: func(b *board) *int { return &b.Turns }},
}

// TestIntParams: Info carries the defaults, bounds and labels; defaults
// kept for absent names, bounds and oddness checked with a message naming
// the parameter, unknown names refused, and every value written back.
func TestIntParams(t *testing.T) {
	def := board{Side: 7, Turns: 50}
	info := boardParams.Info(def)
	want := []ParamInfo{
		{Name: "side", Default: "7", Doc: "odd side", Int: true, Min: 5, Max: 9, Odd: true, Label: "Side"},
		{Name: "turns", Default: "50", Doc: "turns", Int: true, Min: 1, Max: 100},
	}
	if !slices.Equal(info, want) {
		t.Fatalf("Info %+v, want %+v", info, want)
	}
	for _, c := range []struct {
		params Params
		want   board
		err    string
	}{
		{Params{}, def, ""},
		{Params{"side": "9", "turns": ""}, board{9, 50}, ""},
		{Params{"side": "8"}, def, "side=8: must be odd and in 5..9"},
		{Params{"side": "11"}, def, "side=11: must be odd and in 5..9"},
		{Params{"turns": "0"}, def, "turns=0: must be in 1..100"},
		{Params{"turns": "x"}, def, "not an integer"},
		{Params{"sides": "7"}, def, `unknown parameter "sides"`},
	} {
		b := def
		err := boardParams.Read(c.params, &b)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.params, err, c.err)
			}
			continue
		}
		if err != nil || b != c.want {
			t.Errorf("%v: %+v %v, want %+v", c.params, b, err, c.want)
		}
		if p := boardParams.Params(b); len(p) != 2 {
			t.Errorf("Params %v", p)
		}
	}
}
