package jobs

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func ann(id, name string, parallel int, current ...int64) []byte {
	data, _ := json.Marshal(Announcement{ID: id, Name: name, Parallel: parallel, Cores: 2, Current: current, Interval: 1})
	return data
}

func TestRoster(t *testing.T) {
	r := NewRoster()
	now := time.Unix(1000, 0)
	r.now = func() time.Time { return now }
	for _, a := range [][]byte{ann("b", "beta", 2, 7), ann("a", "alpha", 1), ann("c", "alpha", 4)} {
		if err := r.Note(a); err != nil {
			t.Fatal(err)
		}
	}
	got := r.List()
	if len(got) != 3 || got[0].ID != "a" || got[1].ID != "c" || got[2].ID != "b" || got[2].Current[0] != 7 {
		t.Fatalf("list by name then id: %+v", got)
	}
	if c := r.Capacity(); c != 7 {
		t.Fatalf("capacity %d, want 7", c)
	}
	// Silent for more than three intervals: gone. Leaving: gone at once.
	now = now.Add(2 * time.Second)
	r.Note(ann("a", "alpha", 1))
	leave, _ := json.Marshal(Announcement{ID: "c", Parallel: 1, Interval: 1, Leaving: true})
	r.Note(leave)
	now = now.Add(2 * time.Second)
	got = r.List()
	if len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("after b fell silent and c left: %+v", got)
	}
	for _, bad := range []string{
		`{}`, `nope`,
		`{"id":"x","parallel":1,"interval":0}`,
		`{"id":"x","parallel":1,"interval":1,"current":[1,2]}`,
		`{"id":"x","parallel":-1,"interval":1}`,
		`{"id":"x","parallel":1,"interval":1,"matches_run":-5}`,
		`{"id":"x","name":"` + strings.Repeat("n", 65) + `","parallel":1,"interval":1}`,
		`{"id":"x","parallel":1,"interval":1,"name":"` + strings.Repeat("n", 20000) + `"}`,
	} {
		if err := r.Note([]byte(bad)); err == nil {
			t.Errorf("announcement %.60q accepted", bad)
		}
	}
	// A flood of made-up workers is bounded.
	for i := range maxWorkers + 10 {
		r.Note(ann(fmt.Sprint("flood", i), "f", 1))
	}
	if n := len(r.List()); n != maxWorkers {
		t.Fatalf("%d workers listed; the bound is %d", n, maxWorkers)
	}
}

func FuzzParseAnnouncement(f *testing.F) {
	f.Add(ann("x", "w1", 2, 3, 4))
	f.Add([]byte(`{"id":"y","parallel":1,"interval":300,"leaving":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseAnnouncement(data)
		if err != nil {
			return
		}
		if a.ID == "" || len(a.Name) > maxNameLen || len(a.Current) > a.Parallel || a.Interval <= 0 || a.Interval > 300 {
			t.Fatalf("accepted out-of-bounds announcement %+v", a)
		}
	})
}
