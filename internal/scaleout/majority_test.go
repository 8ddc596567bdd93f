package scaleout

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/server"
)

// TestDeterminismMajority: every finished match is run a second time and,
// when the runs differ, a third time on the worker that ran neither; the
// majority's result is the one kept. Of three real workers, one (its test
// hook skew-fuel) writes valid replays that differ from the others' in one
// fuel figure, in every match it plays. Its runs lose every vote: where it
// recorded a match, the honest majority's result replaces its own (and
// `arena replay rerun`, which compares fuel figures with the bots, passes
// on what is stored); after three lost votes it is out of rotation, refused
// new leases while the others play on, until the operator clears it with
// `arena workers clear`. The honest workers lose no vote.
func TestDeterminismMajority(t *testing.T) {
	// One game's matches: fewer house modules for each worker to compile.
	c := newCluster(t, 23290, "127.0.0.1:23291", "--check-every", "1", "--games", "dots-and-boxes")
	c.startWorker("")
	c.startWorker("")
	bad := c.startWorker("skew-fuel")
	s := c.store()
	token, err := os.ReadFile(filepath.Join(c.dir, server.AdminTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(c.dir, server.AdminTokenFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("admin.token: %v, %v; want mode 0600", info, err)
	}
	admin := func() map[string]server.AdminWorker {
		t.Helper()
		req, _ := http.NewRequest("GET", c.base+"/api/v1/admin/workers", nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct{ Workers []server.AdminWorker }
		if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&out) != nil {
			t.Fatalf("GET /api/v1/admin/workers: %s", resp.Status)
		}
		m := map[string]server.AdminWorker{}
		for _, w := range out.Workers {
			m[w.Name] = w
		}
		return m
	}
	// The operator's endpoints answer the operator only.
	for _, tc := range []struct {
		method, auth, body string
		want               int
	}{
		{"GET", "", "", 401},
		{"GET", "Bearer " + strings.Repeat("0", 64), "", 401},
		{"POST", "", "", 401},
		{"POST", "Bearer " + strings.TrimSpace(string(token)), "{}", 400},
	} {
		path := "/api/v1/admin/workers"
		if tc.method == "POST" {
			path += "/" + bad.Name + "/clear"
		}
		req, _ := http.NewRequest(tc.method, c.base+path, strings.NewReader(tc.body))
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Fatalf("%s %s (auth %q, body %q): %s; want %d", tc.method, path, tc.auth, tc.body, resp.Status, tc.want)
		}
	}
	votes := `arena_determinism_votes_total`
	outOfRotation := func() bool { return admin()[bad.Name].Held }
	waitFor(t, "the skewed worker out of rotation", 180*time.Second, outOfRotation)
	w := admin()[bad.Name]
	// Votes already under way when it was taken out may still add strikes.
	if w.Strikes < server.StrikesOut || len(w.Disagreed) != w.Strikes || w.HeldSince == nil {
		t.Fatalf("the skewed worker's standing: %+v", w)
	}
	if n := metric(t, c.base, `arena_workers_out_of_rotation`); n != 1 {
		t.Fatalf("arena_workers_out_of_rotation = %v", n)
	}
	out, err := exec.Command(arenaBin, "workers", "list", "--server", c.base, "--data", c.dir).CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^`+bad.Name+` +[0-9]+/3 +out of rotation `).Match(out) {
		t.Fatalf("arena workers: %v\n%s", err, out)
	}
	// Out of rotation: the others play on, it is given nothing new.
	ran := c.workerInfo(bad.Name).MatchesRun
	n := finishedCount(t, s)
	waitFor(t, "4 more matches while it is out", 60*time.Second, func() bool { return finishedCount(t, s) >= n+4 })
	if now := c.workerInfo(bad.Name).MatchesRun; now > ran+1 {
		t.Fatalf("the worker out of rotation ran %d more matches", now-ran)
	}
	// It hears of it at its next pull, which may come after those 4.
	waitFor(t, "a lease refused to the worker out of rotation, in its log", 60*time.Second, func() bool {
		data, _ := os.ReadFile(filepath.Join(c.dir, "workers.log"))
		return strings.Contains(string(data), "worker: out of rotation")
	})
	if now := c.workerInfo(bad.Name).MatchesRun; now > ran+1 {
		t.Fatalf("the worker out of rotation ran %d more matches", now-ran)
	}
	// Both kinds of vote happen: cleared, it plays (and loses) again.
	for metric(t, c.base, votes+`{outcome="replaced"}`) < 1 || metric(t, c.base, votes+`{outcome="recorded"}`) < 1 {
		out, err := exec.Command(arenaBin, "workers", "clear", bad.Name, "--server", c.base, "--data", c.dir).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "back in rotation") {
			t.Fatalf("arena workers clear: %v\n%s", err, out)
		}
		if admin()[bad.Name].Held {
			t.Fatal("still out of rotation after arena workers clear")
		}
		waitFor(t, "the skewed worker out of rotation again", 180*time.Second, outOfRotation)
	}
	for name, w := range admin() {
		if name != bad.Name && w.Strikes != 0 {
			t.Errorf("honest worker %s lost %d votes: %v", name, w.Strikes, w.Disagreed)
		}
	}
	if n := metric(t, c.base, votes+`{outcome="none"}`); n != 0 {
		t.Errorf("%v votes with no majority", n)
	}
	// A match whose recorded run lost the vote holds the majority's replay:
	// rerun compares its fuel figures with the house bots' and passes.
	id := replacedMatch(t, filepath.Join(c.dir, "serve.log"))
	data, err := s.Replay(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "replay.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(arenaBin, "replay", "rerun", file).CombinedOutput(); err != nil {
		t.Fatalf("rerun of match %d, whose result the majority replaced: %v\n%s", id, err, out)
	}
	exactlyOnce(t, s)
}

// replacedMatch finds in the server's log a match whose recorded result
// the majority replaced.
func replacedMatch(t *testing.T, log string) int64 {
	t.Helper()
	data, _ := os.ReadFile(log)
	m := regexp.MustCompile(`recorded run lost the vote[^\n]* match=(\d+)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no replaced result in the server's log")
	}
	id, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil {
		t.Fatal(fmt.Errorf("match id %q: %w", m[1], err))
	}
	return id
}
