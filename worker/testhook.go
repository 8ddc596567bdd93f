package worker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/replay"
)

// TestHooksEnv names the faults that the process tests of package
// internal/scaleout inject into real `arena worker` processes. It is read
// only by a binary built with the build tag arenatesthooks (testhook_on.go,
// which internal/scaleout's TestMain builds); a release build has no hooks
// whatever its environment (testhook_off.go). The value is a comma-separated
// list:
//
//	crash-on=ID      exit at once (status 3) when match ID starts: a poison job
//	perturb-checks   flip the last byte of the replay of every determinism
//	                 check this worker runs: a worker that plays differently
//	skew-fuel        add 1 to the fuel of the first metered answer of every
//	                 match this worker plays, recorded or checked: a worker
//	                 whose replays are valid but differ (a metering fault)
const TestHooksEnv = "ARENA_TEST_WORKER_HOOKS"

// testHooks are the parsed faults; the zero value injects none.
type testHooks struct {
	crashOn       int64
	perturbChecks bool
	skewFuel      bool
}

func parseTestHooks(s string) (testHooks, error) {
	var h testHooks
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		name, value, _ := strings.Cut(part, "=")
		switch name {
		case "":
		case "crash-on":
			id, err := strconv.ParseInt(value, 10, 64)
			if err != nil || id <= 0 {
				return testHooks{}, fmt.Errorf("%s: crash-on=%q: want a match id", TestHooksEnv, value)
			}
			h.crashOn = id
		case "perturb-checks":
			h.perturbChecks = true
		case "skew-fuel":
			h.skewFuel = true
		default:
			return testHooks{}, fmt.Errorf("%s: unknown hook %q", TestHooksEnv, name)
		}
	}
	return h, nil
}

// crash reports whether the process must exit as this match starts.
func (h testHooks) crash(matchID int64) bool { return h.crashOn != 0 && matchID == h.crashOn }

// skew changes one fuel figure of a played match, which replay.Verify
// does not recompute: the replay stays valid and differs.
func (h testHooks) skew(r *replay.Replay) {
	if !h.skewFuel {
		return
	}
	for i := range r.Turns {
		for j := range r.Turns[i].Seats {
			if s := &r.Turns[i].Seats[j]; s.Fuel > 0 && !s.Failed {
				s.Fuel++
				return
			}
		}
	}
}

// perturb spoils a check's replay, so that it differs from the recorded one.
func (h testHooks) perturb(r *jobs.Result) {
	if h.perturbChecks && r.Check && len(r.Replay) > 0 {
		r.Replay = append([]byte(nil), r.Replay...)
		r.Replay[len(r.Replay)-1] ^= 0x01
	}
}
