package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/store/storetest"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox/wasmtest"
	"github.com/arenabots/arena/tournament"
)

// finishedRated counts a store's finished rated matches.
func finishedRated(b testing.TB, s *store.Store) int {
	n := 0
	f := store.MatchFilter{Limit: 200}
	for {
		ms, err := s.Matches(context.Background(), f)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range ms {
			if m.Kind == store.KindRated && m.State == store.Finished {
				n++
			}
		}
		if len(ms) < f.Limit {
			return n
		}
		f.Before = ms[len(ms)-1].ID
	}
}

// BenchmarkThroughput compares the matches per minute the service sustains
// (two in-process workers, the matchmaker, the store and the queue) with
// `arena tournament`'s engine on the same bots and cores, in the same run.
// Run with: go test -run '^$' -bench Throughput -benchtime 1x ./internal/server/
func BenchmarkThroughput(b *testing.B) {
	const workers = 2
	window := 20 * time.Second
	// The service raises GOMAXPROCS (servingProcs); the raw engine runs at
	// the default, as `arena tournament` does.
	procs0 := runtime.GOMAXPROCS(0)
	for _, kind := range []string{"house", "wasm"} {
		b.Run(kind, func(b *testing.B) {
			runtime.GOMAXPROCS(procs0)
			g, _ := games.Lookup("dots-and-boxes")
			// The service's ladder plays the house's wasm builds
			// (internal/housebots), so the tournament plays them too.
			dir := b.TempDir()
			houseWasm := map[string]string{}
			ladder, err := housebots.Ladder()
			if err != nil {
				b.Fatal(err)
			}
			for _, e := range ladder {
				if e.Game == "dots-and-boxes" {
					houseWasm[e.Name] = filepath.Join(dir, e.Name+".wasm")
					if err := os.WriteFile(houseWasm[e.Name], e.Wasm, 0o644); err != nil {
						b.Fatal(err)
					}
				}
			}
			wasm := func(path string) spec.Spec { return spec.Spec{Kind: spec.Wasm, Path: path} }
			specs := []spec.Spec{wasm(houseWasm["chains"]), wasm(houseWasm["greedy"]), wasm(houseWasm["random"])}
			var kit []byte
			if kind == "wasm" {
				path := wasmtest.GoBuild(b, "../../games/dotsandboxes/kits/go/dots-and-boxes", "")
				kit, _ = os.ReadFile(path)
				a, c := filepath.Join(dir, "kit1.wasm"), filepath.Join(dir, "kit2.wasm")
				os.WriteFile(a, kit, 0o644)
				os.WriteFile(c, kit, 0o644)
				specs = []spec.Spec{wasm(a), wasm(c), wasm(houseWasm["greedy"])}
			}
			// The raw engine: a round robin on both cores, its modules
			// compiled before the clock starts, as the service's are by
			// the time it is measured.
			for _, s := range specs {
				if err := (specRunner{}).Check(context.Background(), g, s); err != nil {
					b.Fatal(err)
				}
			}
			const boards = 40
			start := time.Now()
			if _, err := tournament.Run(context.Background(), tournament.Config{Game: g, Runner: specRunner{}, Bots: specs, Seed: 1, Boards: boards, Parallel: workers}); err != nil {
				b.Fatal(err)
			}
			raw := float64(3*boards*2) / time.Since(start).Minutes()

			// The service on the same bots.
			r := start0(b, func(o *server.Options) { o.Games = []string{"dots-and-boxes"}; o.Workers = workers })
			st := r.Srv.Store()
			ctx := context.Background()
			// Only the tournament's bots play in the service too.
			keep := map[string]bool{"chains": true, "greedy": true, "random": true}
			if kind == "wasm" {
				keep = map[string]bool{"greedy": true}
				tok := signup(b, r.URL, "bench")
				for _, name := range []string{"kit1", "kit2"} {
					if code := call(b, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/"+name, tok, bytes.NewReader(kit), "application/wasm", nil); code != 201 {
						b.Fatalf("upload: %d", code)
					}
				}
			}
			house, _ := st.AccountByHandle(ctx, "house")
			for _, hb := range g.HouseBots() {
				if !keep[hb.Name] {
					bot, _ := st.BotByName(ctx, house.ID, "dots-and-boxes", hb.Name)
					st.Retire(ctx, bot.ID)
				}
			}
			time.Sleep(2 * time.Second) // past the start and the uploads
			// Matches at the server's own priority (`arena serve`'s
			// default), then lowered by --match-nice 10, then on batch
			// threads (--match-batch).
			b.ReportMetric(raw, "tournament-matches/min")
			for _, set := range []struct {
				lower int
				batch bool
			}{{0, false}, {10, false}, {0, true}} {
				lower := set.lower
				r.Srv.SetMatchNice(lower, set.batch)
				time.Sleep(time.Second) // the matches started before, finished
				n0, t0 := finishedRated(b, st), time.Now()
				time.Sleep(window)
				n1, t1 := finishedRated(b, st), time.Now()
				svc := float64(n1-n0) / t1.Sub(t0).Minutes()
				tag := ""
				if lower > 0 {
					tag = fmt.Sprintf("nice%d-", lower)
				}
				if set.batch {
					tag += "batch-"
				}
				b.ReportMetric(svc, tag+"service-matches/min")
				b.ReportMetric(svc/raw, tag+"ratio")
			}
			r.stop()
		})
	}
}

// specRunner is arena tournament's runner: bots opened from their SPECs,
// one match.Runner per game.
type specRunner struct{}

func (specRunner) Check(ctx context.Context, g game.Game, s spec.Spec) error {
	b, err := local.Opener{}.Open(ctx, s, bot.Match{Game: g})
	if err == nil {
		b.Close()
	}
	return err
}

func (specRunner) Play(ctx context.Context, g game.Game, seed uint64, params game.Params, specs []spec.Spec) (*replay.Replay, error) {
	return match.Runner{}.Play(ctx, g, game.Config{Seed: seed, Players: len(specs), Params: params}, local.Seats(specs))
}

// start0 is start for benchmarks: SQLite, back-to-back rated matches.
func start0(b *testing.B, mod func(*server.Options)) *running {
	return start(b, store.SQLite, func(o *server.Options) {
		o.Rest = 0
		if mod != nil {
			mod(o)
		}
	})
}

// BenchmarkListLatency stores 100,000 finished matches (straight into the
// database: storetest.FillFinished), then measures leaderboard and
// match-list latency at a fixed rate, open loop, from a second process
// (scripts/openloop, built here), while matches run back to back: first
// between house bots, then between two starter-kit wasm bots. In each phase
// /healthz at the same rate is the baseline of the run.
// Run with: nice -n -5 go test -run '^$' -bench ListLatency -benchtime 1x -timeout 30m ./internal/server/
// (LATENCY_RATE and LATENCY_SECONDS change the rate and the measuring time;
// LATENCY_ORDER=reverse measures the settings in the opposite order.)
func BenchmarkListLatency(b *testing.B) {
	const stored = 100_000
	rate, secs := envInt("LATENCY_RATE", 1000), envInt("LATENCY_SECONDS", 20)
	tool := filepath.Join(b.TempDir(), "openloop")
	if out, err := exec.Command("go", "build", "-o", tool, "../../scripts/openloop").CombinedOutput(); err != nil {
		b.Fatalf("building scripts/openloop: %v\n%s", err, out)
	}
	kitPath := wasmtest.GoBuild(b, "../../games/dotsandboxes/kits/go/dots-and-boxes", "")
	kit, err := os.ReadFile(kitPath)
	if err != nil {
		b.Fatal(err)
	}
	r := start0(b, func(o *server.Options) { o.Games = []string{"dots-and-boxes"} })
	st := r.Srv.Store()
	ctx := context.Background()
	house, _ := st.AccountByHandle(ctx, "house")
	b1, _ := st.BotByName(ctx, house.ID, "grid-royale", "idle")
	b2, _ := st.BotByName(ctx, house.ID, "grid-royale", "house")
	seats := []store.SeatRef{{BotID: b1.ID, VersionID: b1.ActiveVersion}, {BotID: b2.ID, VersionID: b2.ActiveVersion}}
	fill := time.Now()
	storetest.FillFinished(b, filepath.Join(r.dir, "arena.db"), "grid-royale", seats, stored)
	b.Logf("stored %d matches in %v; GOMAXPROCS %d", stored, time.Since(fill), runtime.GOMAXPROCS(0))
	lists := []struct{ name, path string }{
		{"leaderboard", "/api/v1/games/grid-royale/leaderboard"},
		{"matches", "/api/v1/matches?game=grid-royale&limit=50"},
		{"matches-by-bot", fmt.Sprintf("/api/v1/matches?bot=%d&limit=50", b1.ID)},
		{"matches-deep-page", "/api/v1/matches?game=grid-royale&limit=50&before=1000"},
		{"matches-live", "/api/v1/matches?state=live&limit=50"},
		// The game being played: every finished match changes it.
		{"leaderboard-playing", "/api/v1/games/dots-and-boxes/leaderboard"},
	}
	line := regexp.MustCompile(`(?m)^url=(\S+) n=(\d+) errors=(\d+) p50_ms=([0-9.]+) p90_ms=[0-9.]+ p99_ms=([0-9.]+) p999_ms=[0-9.]+ max_ms=([0-9.]+) late_ms=([0-9.]+)$`)
	// Each phase is measured in five settings in the same run (the
	// machine's load moves too much between runs): GOMAXPROCS at one per
	// worker (the runtime's default), at one more with the matches lowered
	// by matchNice levels, and at what servingProcs sets, with the matches
	// at the server's own priority (`arena serve`'s default), lowered, and
	// on batch threads at the server's own level (--match-batch). A
	// setting's matches start under it: the matches running when it
	// starts finish under the one before.
	// A NICE of bN is N levels on batch threads (--match-batch).
	type setting struct {
		procs, nice int
		batch       bool
	}
	const workers, matchNice = 2, 10
	serving := server.ServingProcs(runtime.NumCPU(), workers)
	settings := []setting{{workers, 0, false}, {workers + 1, matchNice, false}, {serving, 0, false}, {serving, matchNice, false}, {serving, 0, true}}
	if only := os.Getenv("LATENCY_SETTINGS"); only != "" { // e.g. "3:10,4:0,4:b0"
		settings = settings[:0]
		for _, s := range strings.Split(only, ",") {
			var set setting
			procs, n, _ := strings.Cut(s, ":")
			var err error
			if set.procs, err = strconv.Atoi(procs); err == nil {
				n, set.batch = strings.CutPrefix(n, "b")
				set.nice, err = strconv.Atoi(n)
			}
			if err != nil {
				b.Fatalf("LATENCY_SETTINGS %q: want PROCS:NICE or PROCS:bNICE,...", only)
			}
			settings = append(settings, set)
		}
	}
	if os.Getenv("LATENCY_ORDER") == "reverse" { // to run A B C, then C B A
		slices.Reverse(settings)
	}
	measure := func(phase string) {
		before := finishedMatches(b, r.URL)
		for _, set := range settings {
			old := runtime.GOMAXPROCS(set.procs)
			r.Srv.SetMatchNice(set.nice, set.batch)
			tag := fmt.Sprintf("%s-procs%d", phase, set.procs)
			if set.nice > 0 {
				tag += fmt.Sprintf("-nice%d", set.nice)
			}
			if set.batch {
				tag += "-batch"
			}
			// /healthz alone first, then the lists together at the same rate.
			for _, urls := range [][]string{{"/healthz"}, nil} {
				names := map[string]string{r.URL + "/healthz": "healthz", "all": "lists-all"}
				if urls == nil {
					for _, l := range lists {
						urls = append(urls, l.path)
					}
				}
				// The sender ahead of the server, as a client on a
				// machine of its own would be (scripts/openloop -nice).
				args := []string{"-rate", strconv.Itoa(rate), "-duration", fmt.Sprintf("%ds", secs), "-warmup", "3s", "-nice", "-10"}
				for _, u := range urls {
					args = append(args, r.URL+u)
				}
				for _, l := range lists {
					names[r.URL+l.path] = l.name
				}
				sched0, gc0 := schedHistograms()
				out, err := exec.Command(tool, args...).Output()
				if err != nil {
					b.Fatalf("openloop: %v\n%s", err, out)
				}
				sched1, gc1 := schedHistograms()
				load, _ := os.ReadFile("/proc/loadavg")
				// To stderr too: the benchmark's log is cut short.
				detail := fmt.Sprintf("%s, load %s\n%s   in the server: goroutines runnable before running p50 %.3f ms, p99 %.3f ms; GC stops p99 %.3f ms, max %.3f ms, %d",
					tag, bytes.TrimSpace(load), out, histPct(sched0, sched1, 50), histPct(sched0, sched1, 99), histPct(gc0, gc1, 99), histPct(gc0, gc1, 100), histCount(gc0, gc1))
				b.Log(detail)
				fmt.Fprintln(os.Stderr, detail)
				for _, m := range line.FindAllStringSubmatch(string(out), -1) {
					p50, _ := strconv.ParseFloat(m[4], 64)
					p99, _ := strconv.ParseFloat(m[5], 64)
					errs, _ := strconv.ParseFloat(m[3], 64)
					b.ReportMetric(p50, tag+"-"+names[m[1]]+"-p50-ms")
					b.ReportMetric(p99, tag+"-"+names[m[1]]+"-p99-ms")
					b.ReportMetric(errs, tag+"-"+names[m[1]]+"-errors")
				}
			}
			runtime.GOMAXPROCS(old)
		}
		if n := finishedMatches(b, r.URL) - before; n == 0 {
			b.Errorf("%s: no match finished while measuring", phase)
		} else {
			b.Logf("%s: %d matches finished while measuring", phase, n)
		}
	}
	// The first seconds after the fill are slower than any later ones
	// (SQLite checkpointing the fill's WAL, the matchmaker catching up):
	// settle before measuring.
	if out, err := exec.Command(tool, "-rate", strconv.Itoa(rate), "-duration", "10s", "-warmup", "0s", r.URL+"/healthz").Output(); err != nil {
		b.Fatalf("openloop: %v\n%s", err, out)
	}
	measure("house")

	// Two starter-kit wasm bots and one house bot: wasm in most matches.
	tok := signup(b, r.URL, "bench")
	for _, name := range []string{"kit1", "kit2"} {
		if code := call(b, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/"+name, tok, bytes.NewReader(kit), "application/wasm", nil); code != 201 {
			b.Fatalf("upload: %d", code)
		}
	}
	g, _ := games.Lookup("dots-and-boxes")
	for _, hb := range g.HouseBots() {
		if hb.Name != "greedy" {
			bot, _ := st.BotByName(ctx, house.ID, "dots-and-boxes", hb.Name)
			st.Retire(ctx, bot.ID)
		}
	}
	time.Sleep(5 * time.Second) // past the smoke matches, the house matches drained
	measure("wasm")
}

// schedHistograms reads this process's histograms of the time goroutines
// spent runnable before they ran, and of the stops for garbage collection.
func schedHistograms() (sched, gc *metrics.Float64Histogram) {
	m := []metrics.Sample{{Name: "/sched/latencies:seconds"}, {Name: "/sched/pauses/total/gc:seconds"}}
	metrics.Read(m)
	return m[0].Value.Float64Histogram(), m[1].Value.Float64Histogram()
}

// histCount is how many events histogram b counted since a.
func histCount(a, b *metrics.Float64Histogram) uint64 {
	n := uint64(0)
	for i := range b.Counts {
		n += b.Counts[i] - a.Counts[i]
	}
	return n
}

// histPct is the p-th percentile, in milliseconds, of what histogram b
// counted since a (the upper bound of the bucket it falls in).
func histPct(a, b *metrics.Float64Histogram, p float64) float64 {
	total := uint64(0)
	for i := range b.Counts {
		total += b.Counts[i] - a.Counts[i]
	}
	if total == 0 {
		return 0
	}
	want, seen := uint64(float64(total)*p/100+0.999999), uint64(0)
	for i := range b.Counts {
		seen += b.Counts[i] - a.Counts[i]
		if seen >= want {
			if math.IsInf(b.Buckets[i+1], 1) {
				return b.Buckets[i] * 1000
			}
			return b.Buckets[i+1] * 1000
		}
	}
	return b.Buckets[len(b.Buckets)-1] * 1000
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkMemory runs rated matches back to back (Dots and Boxes between
// the three quickest house bots, two workers, so that 10,000 matches fit in
// a run) and samples the server process's memory as the match count grows:
// the live Go heap after a collection, and the resident set (which also
// holds SQLite's page cache, outside the Go heap). A leak shows as growth
// per match.
// Run with: go test -run '^$' -bench Memory -benchtime 1x -timeout 120m ./internal/server/
func BenchmarkMemory(b *testing.B) {
	r := start0(b, func(o *server.Options) { o.Games = []string{"dots-and-boxes"} })
	ctx := context.Background()
	st := r.Srv.Store()
	house, _ := st.AccountByHandle(ctx, "house")
	g, _ := games.Lookup("dots-and-boxes")
	for _, hb := range g.HouseBots() {
		if hb.Name != "random" && hb.Name != "greedy" && hb.Name != "chains" {
			bot, _ := st.BotByName(ctx, house.ID, "dots-and-boxes", hb.Name)
			st.Retire(ctx, bot.ID)
		}
	}
	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20)
	}
	start := time.Now()
	for _, n := range []int{250, 1000, 5000, 10000} {
		for finishedMatches(b, r.URL) < n {
			time.Sleep(2 * time.Second)
		}
		h, rss := heap(), residentMiB(b)
		b.Logf("%6d finished matches after %v: live heap %.1f MiB, resident %.1f MiB", n, time.Since(start).Round(time.Second), h, rss)
		b.ReportMetric(h, fmt.Sprintf("heap-MiB-at-%d", n))
		b.ReportMetric(rss, fmt.Sprintf("rss-MiB-at-%d", n))
	}
}

// finishedMatches reads the server's count of finished matches from
// /metrics: cheap at any number of stored matches, unlike listing them.
func finishedMatches(b testing.TB, base string) int {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	n := 0.0
	for _, m := range regexp.MustCompile(`(?m)^arena_matches_total\{[^}]*state="finished"[^}]*\} ([0-9.e+]+)$`).FindAllStringSubmatch(string(data), -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		n += v
	}
	return int(n)
}

// residentMiB is this process's resident set size.
func residentMiB(b testing.TB) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^VmRSS:\s+(\d+) kB`).FindSubmatch(data)
	if m == nil {
		b.Fatal("no VmRSS in /proc/self/status")
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return float64(kb) / 1024
}
