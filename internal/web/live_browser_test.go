package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/worker"
)

// apiCall makes a JSON request to the platform's API and decodes the answer.
func apiCall(t *testing.T, method, url, token string, body, dst any) {
	t.Helper()
	var r io.Reader // no body where none is given: the API refuses one it does not take
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, e.Error)
	}
	if err := json.NewDecoder(resp.Body).Decode(dst); err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
}

// Someone who opens a running platform match late sees the board at once and
// then follows it live; the Arena page shows the match appear and finish
// without asking again. The test is the match's worker: the platform runs
// none of its own, and the test plays the match with the same runner a
// worker uses and publishes its turns and result on NATS, at its own pace,
// so what the pages have seen is known whatever the machine's load.
func TestBrowserLateLiveMatch(t *testing.T) {
	ns, err := jobs.StartServer(t.TempDir(), func(o *natsserver.Options) error {
		o.DontListen, o.Host, o.Port = false, "127.0.0.1", natsserver.RANDOM_PORT
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	base := platform(t, func(o *server.Options) { o.NATS = server.NATSOptions{URL: ns.ClientURL(), NoWorkers: true} })
	ctx := browser(t)

	// An unrated match between two house bots, queued for a worker.
	var acc struct{ Token string }
	apiCall(t, "POST", base+"/api/v1/accounts", "", map[string]string{"handle": "watcher", "password": "correct horse battery"}, &acc)
	var house struct {
		Bots []struct {
			ID   int64
			Game string
			Name string
		}
	}
	apiCall(t, "GET", base+"/api/v1/players/house", "", nil, &house)
	var ids []int64
	var specs []string
	for _, b := range house.Bots {
		if b.Game == "dots-and-boxes" && len(ids) < 2 {
			// The house's ladder entry: the module its version plays.
			ids, specs = append(ids, b.ID), append(specs, "house:"+b.Name)
		}
	}
	if len(ids) != 2 {
		t.Fatalf("house bots of dots-and-boxes: %v", house.Bots)
	}
	waitJS := func(what, js string) { t.Helper(); waitJSAt(t, ctx, what, js, 30*time.Second) }
	steps(t, ctx, "the Arena", chromedp.Navigate(base+"/arena/dots-and-boxes"))
	waitJS("the empty lists", "document.getElementById('live').textContent === 'No match is being played right now.' && document.getElementById('finished').textContent === 'None yet.'")
	var ch struct{ Match int64 }
	apiCall(t, "POST", base+"/api/v1/challenges", acc.Token, map[string]any{"game": "dots-and-boxes", "bots": ids, "seed": 5}, &ch)
	inLive := fmt.Sprintf("document.querySelector('#live li[data-id=\"%d\"]')", ch.Match)
	inFinished := fmt.Sprintf("document.querySelector('#finished li[data-id=\"%d\"]')", ch.Match)
	waitJS("the challenge among the live matches", inLive+" && !"+inFinished)
	shot(t, ctx, "platform-arena-live")
	// Opened before a worker takes it, the match says it is queued.
	steps(t, ctx, "the queued match", chromedp.Navigate(fmt.Sprintf("%s/matches/%d", base, ch.Match)))
	waitJS("the queued match", "Arena.viewer && Arena.viewer.live && document.getElementById('v-state').textContent.indexOf('Queued') === 0")
	if label := eval[string](t, ctx, "document.getElementById('turnlabel').textContent"); strings.Contains(label, "0 of 0") {
		t.Fatalf("a queued match's turn label says %q", label)
	}
	shot(t, ctx, "platform-match-queued")
	var m core.MatchJSON
	apiCall(t, "GET", fmt.Sprintf("%s/api/v1/matches/%d", base, ch.Match), "", nil, &m)
	seed, err := strconv.ParseUint(m.Seed, 10, 64)
	if err != nil {
		t.Fatal(err)
	}

	// Played here as a worker would play it: the job taken off the queue,
	// its lease taken, the match played with its modules.
	nc, err := jobs.Dial(ns.ClientURL(), jobs.Creds{}, "test worker")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	qctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q, err := jobs.Open(qctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	jmsg, err := q.Jobs.Next(jetstream.FetchMaxWait(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var job jobs.Job
	if err := json.Unmarshal(jmsg.Data(), &job); err != nil || job.MatchID != m.ID {
		t.Fatalf("job %+v (%v): want match %d's", job, err, m.ID)
	}
	lease, err := jobs.RequestLease(qctx, nc, jobs.LeaseRequest{Op: jobs.LeaseTake, MatchID: job.MatchID, Ticket: job.Ticket, Gen: job.Rerun, Modules: job.Modules(), Worker: "test worker"})
	if err != nil || lease.Lease == nil {
		t.Fatalf("lease: %+v %v", lease, err)
	}
	g, err := games.Lookup(m.Game)
	if err != nil {
		t.Fatal(err)
	}
	var turns [][]byte
	rn := match.Runner{OnTurn: func(tr *replay.Turn, _ game.State) {
		b, _ := json.Marshal(tr)
		turns = append(turns, b)
	}}
	rep, err := rn.Play(context.Background(), g, game.Config{Seed: seed, Players: 2, Params: game.Params(m.Params)}, local.Seats(spec.MustParseAll(specs...)))
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 60 {
		t.Fatalf("%d turns", len(turns))
	}
	for i, seat := range job.Seats {
		rep.Bots[i].Spec = "wasm:" + seat.Wasm // as a worker names the seats it fetched
	}
	header, err := jobs.LiveHeader(*lease.Lease)
	if err != nil {
		t.Fatal(err)
	}
	publish := func(from, to int) {
		// As a worker does: a batch of turns under the match's lease.
		batch := bytes.Clone(header)
		for i := from; i < to; i++ {
			batch = jobs.AppendTurn(batch, i+1, turns[i])
		}
		if err := nc.Publish(jobs.LiveSubject(m.ID), batch); err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	publish(0, 20)

	// The server takes the turns in as they come: wait until it has all
	// twenty before opening the view, so that the view starts late.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var seen [][]byte
		resp, err := http.Get(fmt.Sprintf("%s/api/v1/matches/%d/live", base, m.ID))
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 1<<20)
		n, got := 0, false
		for !got && n < len(buf) {
			k, err := resp.Body.Read(buf[n:])
			n += k
			if i := bytes.Index(buf[:n], []byte("event: turns\ndata: ")); i >= 0 {
				if j := bytes.Index(buf[i:n], []byte("\n\n")); j >= 0 {
					json.Unmarshal(buf[i+len("event: turns\ndata: "):i+j], &seen)
					got = true
				}
			}
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		if !got {
			t.Fatal("the live stream sent no turns so far")
		}
		if len(seen) == 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the live stream holds %d of the 20 turns published", len(seen))
		}
		time.Sleep(50 * time.Millisecond)
	}

	steps(t, ctx, "opening the match late", chromedp.Navigate(base+fmt.Sprintf("/matches/%d", m.ID)))
	waitJS("the board at turn 20", "Arena.viewer && Arena.viewer.live && !Arena.viewer.done && Arena.viewer.frames.length === 21 && Arena.viewer.index === 20 && document.querySelectorAll('#board *').length > 10")
	if state := eval[string](t, ctx, "document.getElementById('v-state').textContent"); state == "" || bytes.Contains([]byte(state), []byte("joined after the start")) {
		t.Fatalf("the view says %q", state)
	}
	shot(t, ctx, "platform-live-late")
	publish(20, 35)
	waitJS("the live turns after it", "Arena.viewer.frames.length === 36 && Arena.viewer.index === 35 && Arena.viewer.live && !Arena.viewer.done")
	shot(t, ctx, "platform-live-late-followed")

	// Back on the Arena, the match finishes as the page watches.
	steps(t, ctx, "the Arena again", chromedp.Navigate(base+"/arena/dots-and-boxes"))
	waitJS("the match still live", inLive+" && !"+inFinished)
	publish(35, len(turns))
	data, err := rep.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	res := worker.Summarize(m.ID, g, rep, data, make([][]byte, 2), time.Second)
	res.Lease = lease.Lease
	result, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(context.Background(), jobs.ResultSubject, result); err != nil {
		t.Fatal(err)
	}
	waitJS("the match among the finished ones", "!"+inLive+" && "+inFinished+" && document.getElementById('live').textContent === 'No match is being played right now.'")
	if n := eval[int](t, ctx, "performance.getEntriesByType('resource').filter(function (e) { return e.name.indexOf('/api/v1/matches') >= 0; }).length"); n != 0 {
		t.Fatalf("the Arena page asked the API for matches %d times instead of following the stream", n)
	}
	shot(t, ctx, "platform-arena-finished")
	steps(t, ctx, "the other theme", chromedp.Click(chromedp.CSS("#theme-toggle")))
	shot(t, ctx, "platform-arena-finished-other-theme")
	eval[any](t, ctx, "localStorage.removeItem('arena-theme')")
}
