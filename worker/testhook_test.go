package worker

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/replay"
)

// TestHooksAbsentFromReleaseBuilds: this package's tests are built without
// the arenatesthooks tag, as a release is: whatever the environment of the
// test process (set it to check), no hook is armed.
func TestHooksAbsentFromReleaseBuilds(t *testing.T) {
	if hooks != (testHooks{}) {
		t.Fatalf("hooks %+v in a build without the arenatesthooks tag (%s=%q)", hooks, TestHooksEnv, os.Getenv(TestHooksEnv))
	}
}

func TestParseTestHooks(t *testing.T) {
	h, err := parseTestHooks(" crash-on=7 , perturb-checks")
	if err != nil || h != (testHooks{crashOn: 7, perturbChecks: true}) {
		t.Fatalf("parsed %+v, %v", h, err)
	}
	if !h.crash(7) || h.crash(8) {
		t.Fatal("crash-on=7 must crash on match 7 only")
	}
	if h, err := parseTestHooks(""); err != nil || h != (testHooks{}) {
		t.Fatalf("empty: %+v, %v", h, err)
	}
	for _, bad := range []string{"crash-on", "crash-on=x", "crash-on=0", "crash-on=-2", "perturb", "explode=1"} {
		if _, err := parseTestHooks(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	orig := []byte(`{"turns":[]}`)
	r := jobs.Result{Check: true, Replay: orig}
	h.perturb(&r)
	if string(r.Replay) == string(orig) || string(orig) != `{"turns":[]}` {
		t.Fatalf("a check's replay not perturbed (or the original changed): %q", r.Replay)
	}
	r = jobs.Result{Replay: orig}
	h.perturb(&r)
	if string(r.Replay) != string(orig) {
		t.Fatal("a recorded run's replay was perturbed: only checks are")
	}
	// skew-fuel changes the first metered answer's fuel, nothing else.
	s, err := parseTestHooks("skew-fuel")
	if err != nil || s != (testHooks{skewFuel: true}) {
		t.Fatalf("skew-fuel: %+v, %v", s, err)
	}
	rep := &replay.Replay{Turns: []replay.Turn{{Seats: []replay.Seat{{Fuel: 0}, {Fuel: 5, Failed: true}, {Fuel: 7}, {Fuel: 9}}}}}
	s.skew(rep)
	if got := rep.Turns[0].Seats; got[0].Fuel != 0 || got[1].Fuel != 5 || got[2].Fuel != 8 || got[3].Fuel != 9 {
		t.Fatalf("skewed: %+v", got)
	}
	h.skew(rep)
	if rep.Turns[0].Seats[2].Fuel != 8 {
		t.Fatal("skewed without the hook")
	}
}

// FuzzParseTestHooks: any value either is refused or parses to hooks that
// print back to a value that parses the same.
func FuzzParseTestHooks(f *testing.F) {
	for _, s := range []string{"", "crash-on=3", "perturb-checks", "crash-on=9,perturb-checks", " , ", "crash-on=-1", "x=y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := parseTestHooks(s)
		if err != nil {
			return
		}
		if h.crashOn < 0 {
			t.Fatalf("%q: crash-on %d", s, h.crashOn)
		}
		var parts []string
		if h.crashOn != 0 {
			parts = append(parts, "crash-on="+strconv.FormatInt(h.crashOn, 10))
		}
		if h.perturbChecks {
			parts = append(parts, "perturb-checks")
		}
		if h.skewFuel {
			parts = append(parts, "skew-fuel")
		}
		again, err := parseTestHooks(strings.Join(parts, ","))
		if err != nil || again != h {
			t.Fatalf("%q -> %+v -> %+v, %v", s, h, again, err)
		}
	})
}
