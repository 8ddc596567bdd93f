package gridroyale

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/arenabots/arena/game"
)

func TestParseBatch(t *testing.T) {
	for _, c := range []struct {
		line string
		want string // canonical form, or "" when malformed
		err  string
	}{
		{`{"orders":[{"unit":12,"do":"MOVE_N"},{"unit":5,"do":"STAY"}],"spawn":true}`,
			`{"orders":[{"unit":5,"do":"STAY"},{"unit":12,"do":"MOVE_N"}],"spawn":true}`, ""},
		{` {"spawn":false} `, `{"orders":[]}`, ""},
		{`{}`, `{"orders":[]}`, ""},
		{`{"orders":null,"spawn":null}`, "", `"orders" is null`},
		{`{"spawn":null}`, "", `"spawn" is null`},
		{`{"spwan":true,"Orders":[{"unit":1,"do":"STAY"}]}`, `{"orders":[]}`, ""}, // unknown fields, letter case included, are ignored
		{`{"orders":[{"unit":3,"do":"MOVE_W"}]}`, `{"orders":[{"unit":3,"do":"MOVE_W"}]}`, ""},
		{`{"orders":[{"unit":-7,"do":"STAY"}]}`, `{"orders":[{"unit":-7,"do":"STAY"}]}`, ""}, // legal JSON, illegal batch
		{``, "", "not a batch"},
		{`[]`, "", "want an object"},
		{`null`, "", "is null"},
		{`{"orders":[{"unit":1,"do":"FIRE"}]}`, "", `"FIRE" is not one of`},
		{`{"orders":[{"unit":1,"do":"move_n"}]}`, "", "is not one of"},
		{`{"orders":[{"unit":1}]}`, "", `has no field "do"`},
		{`{"orders":[{"do":"STAY"}]}`, "", `has no field "unit"`},
		{`{"orders":[null]}`, "", "is null"},
		{`{"orders":[{"unit":1.5,"do":"STAY"}]}`, "", "not a batch"},
		{`{"orders":[{"unit":"1","do":"STAY"}]}`, "", "not a batch"},
		{`{"orders":{}}`, "", "not a batch"},
		{`{"spawn":"yes"}`, "", "not a batch"},
		{`{"orders":[],"orders":[]}`, "", "twice"},
		{`{"orders":[]} {}`, "", "after top-level value"},
		{`{"orders":[]`, "", "not a batch"},
	} {
		b, err := ParseBatch([]byte(c.line))
		if c.want == "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseBatch(%s): error %v, want one saying %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseBatch(%s): %v", c.line, err)
			continue
		}
		if got := string(AppendBatch(nil, &b)); got != c.want {
			t.Errorf("ParseBatch(%s) = %s, want %s", c.line, got, c.want)
		}
	}
}

func TestApplyVerdicts(t *testing.T) {
	st, _ := Game{}.New(game.Config{Seed: 3, Players: 4})
	s := st.(*State)
	v := s.Apply([][]byte{
		[]byte(`{"orders":[{"unit":1,"do":"MOVE_N"}],"spawn":true}`),
		[]byte(`{"orders":[{"unit":1,"do":"MOVE_N"}]}`), // seat 1 names seat 0's unit
		[]byte(`not json`),
		nil, // no answer
	})
	want := []struct {
		status game.Status
		action string
		reason string
	}{
		{game.OK, `{"orders":[{"unit":1,"do":"MOVE_N"}],"spawn":true}`, ""},
		{game.Illegal, `{"orders":[]}`, "unit 1 is not a living unit of player 1"},
		{game.Malformed, `{"orders":[]}`, "not a batch"},
		{"", `{"orders":[]}`, ""},
	}
	for seat, w := range want {
		if v[seat].Status != w.status || string(v[seat].Action) != w.action || !strings.Contains(v[seat].Reason, w.reason) {
			t.Errorf("seat %d: %+v (action %s), want %s %s %q", seat, v[seat], v[seat].Action, w.status, w.action, w.reason)
		}
	}
	if s.TurnNum != 1 || s.UnitCount(0) != 2 {
		t.Fatalf("turn %d, seat 0 has %d units: the match should go on with seat 0's batch applied", s.TurnNum, s.UnitCount(0))
	}
	// Re-applying the recorded actions to a fresh match gives the same state.
	again, _ := Game{}.New(game.Config{Seed: 3, Players: 4})
	actions := make([][]byte, 4)
	for seat := range v {
		actions[seat] = v[seat].Action
	}
	again.Apply(actions)
	if again.Hash() != s.Hash() {
		t.Fatal("re-applying the recorded actions gave another state")
	}
}

func TestObservation(t *testing.T) {
	st, _ := Game{}.New(game.Config{Seed: 11, Players: 4})
	s := st.(*State)
	obs := s.AppendObservation(nil, 2)
	for _, prefix := range []string{
		`{"turn":0,"max_turns":400,"you":2,"width":32,"height":32,"safe_zone":{"x0":0,"y0":0,"x1":31,"y1":31},"ore":[[`,
	} {
		if !bytes.HasPrefix(obs, []byte(prefix)) {
			t.Fatalf("observation starts %.200s, want %s", obs, prefix)
		}
	}
	for _, part := range []string{
		`"bases":[{"owner":0,"x":13,"y":13},{"owner":1,"x":18,"y":13},{"owner":2,"x":18,"y":18},{"owner":3,"x":13,"y":18}]`,
		`"banks":[1000,1000,1000,1000]`,
		`"units":[{"id":1,"owner":0,"x":13,"y":13,"cargo":0},`,
		`"params":{"cargo_cap":1000,"spawn_cost":500,"move_cost_divisor":10,"harvest_divisor":4,"units_cap":50,` +
			`"grid_side":32,"players":4,"max_turns":400,"shrink_interval":25,"min_zone":8}}`,
	} {
		if !bytes.Contains(obs, []byte(part)) {
			t.Errorf("observation lacks %s", part)
		}
	}
	var o struct {
		Turn, MaxTurns, You, Width, Height int
		SafeZone                           map[string]int `json:"safe_zone"`
		Ore                                [][]int
		Units                              []map[string]int
		Params                             map[string]int
	}
	if err := json.Unmarshal(obs, &o); err != nil {
		t.Fatalf("observation is not JSON: %v", err)
	}
	if len(o.Ore) != 32 || len(o.Ore[0]) != 32 || len(o.Units) != 4 {
		t.Fatalf("ore %dx%d, %d units", len(o.Ore), len(o.Ore[0]), len(o.Units))
	}
	for y := range o.Ore {
		for x, v := range o.Ore[y] {
			if v != s.Ore[y*32+x] {
				t.Fatalf("ore[%d][%d]=%d, the state has %d: ore must be row-major ore[y][x]", y, x, v, s.Ore[y*32+x])
			}
			if rx, ry := 31-y, x; o.Ore[ry][rx] != v {
				t.Fatalf("observed ore is not symmetric at (%d,%d)", x, y)
			}
		}
	}
	if len(o.Params) != len(paramSpecs)+1 {
		t.Fatalf("params %v: want every parameter of the table and players", o.Params)
	}
}

// FuzzParseBatch checks that no line crashes the parser and that what it
// accepts survives a round trip through the canonical form.
func FuzzParseBatch(f *testing.F) {
	for _, seed := range []string{
		`{"orders":[{"unit":12,"do":"MOVE_N"},{"unit":15,"do":"STAY"}],"spawn":true}`,
		`{"orders":[]}`, `{}`, `{"spawn":true}`, `null`, `[`, `{"orders":[{"unit":-1,"do":"MOVE_E"}]}`,
		`{"orders":[{"unit":99999999999999999999,"do":"MOVE_S"}]}`, `{"ORDERS":[{"Unit":1,"DO":"MOVE_W"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		b, err := ParseBatch(line)
		if err != nil {
			return
		}
		canon := AppendBatch(nil, &b)
		b2, err := ParseBatch(canon)
		if err != nil {
			t.Fatalf("canonical form %s does not parse: %v", canon, err)
		}
		if again := AppendBatch(nil, &b2); !bytes.Equal(again, canon) {
			t.Fatalf("round trip: %s then %s", canon, again)
		}
	})
}

// FuzzApply feeds arbitrary answers to a 2-player match for a few turns:
// nothing may crash, ore is conserved, and every verdict is a known status.
func FuzzApply(f *testing.F) {
	f.Add([]byte(`{"orders":[{"unit":1,"do":"MOVE_E"}],"spawn":true}`), []byte(`{"orders":[{"unit":2,"do":"MOVE_W"}]}`), uint8(5))
	f.Add([]byte(`{"orders":[{"unit":2,"do":"MOVE_E"}]}`), []byte(`garbage`), uint8(3))
	f.Add([]byte(`{"spawn":true}`), []byte(`{"orders":[{"unit":2,"do":"STAY"},{"unit":2,"do":"STAY"}]}`), uint8(40))
	f.Fuzz(func(t *testing.T, a, b []byte, turns uint8) {
		st, _ := Game{}.New(game.Config{Seed: 5, Players: 2})
		s := st.(*State)
		total := s.OreTotal()
		for i := 0; i < int(turns%64) && !s.Done(); i++ {
			for seat, v := range s.Apply([][]byte{a, b}) {
				switch v.Status {
				case game.OK, game.Illegal, game.Malformed:
				default:
					t.Fatalf("seat %d: status %q", seat, v.Status)
				}
				if _, err := ParseBatch(v.Action); err != nil {
					t.Fatalf("seat %d: recorded action %s does not parse", seat, v.Action)
				}
			}
			if s.OreTotal() != total {
				t.Fatalf("ore total %d, want %d", s.OreTotal(), total)
			}
		}
	})
}

func TestRender(t *testing.T) {
	st, _ := Game{}.New(game.Config{Seed: 2, Players: 4})
	s := st.(*State)
	s.Apply([][]byte{[]byte(`{"orders":[{"unit":1,"do":"MOVE_N"}],"spawn":true}`), nil, nil, nil})
	var plain, color bytes.Buffer
	s.Render(&plain, false)
	s.Render(&color, true)
	s.Units = s.Units[:1] // seat 1's base is now empty
	var bare bytes.Buffer
	s.Render(&bare, false)
	if !strings.Contains(bare.String(), "[1") {
		t.Errorf("an empty base is not drawn as [1:\n%s", bare.String())
	}
	lines := strings.Split(strings.TrimRight(plain.String(), "\n"), "\n")
	if len(lines) != 1+32+4 {
		t.Fatalf("%d lines, want a header, 32 rows and 4 players:\n%s", len(lines), plain.String())
	}
	if bytes.Contains(plain.Bytes(), []byte("\x1b[")) || !bytes.Contains(color.Bytes(), []byte("\x1b[")) {
		t.Fatal("colour codes only with color=true")
	}
	for _, want := range []string{"u0", "@0", "@3", "player 0  bank 500  units 2"} {
		if !strings.Contains(plain.String(), want) {
			t.Errorf("the board lacks %q:\n%s", want, plain.String())
		}
	}
	if row := lines[1+13]; len(row) != 64 {
		t.Errorf("row %q: want two characters a cell", row)
	}
}
