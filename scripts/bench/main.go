// Command bench measures every figure of docs/performance.md's table in one
// run and prints each as a ratio (or a time) beside its target, met or not
// met. scripts/bench.sh builds and runs it; see that script for the usage.
//
// Every figure is a ratio taken within this run, so that the machine's
// speed cancels out: the sandbox's round trip against a Go channel
// ping-pong in the same test binary, the metered search against the
// unmetered one, the server's CPU per match against the raw tournament's
// CPU per match on the same bots, `arena serve`'s matches a minute against
// `arena tournament`'s (idle, and with a busy process beside them). The
// API's latency is absolute: p50 and p99 at a fixed rate, open loop
// (scripts/openloop), against a server seeded with `arena seed`.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/arenabots/arena/bot/spec"
)

// row is one line of the table.
type row struct {
	figure, value, target string
	met                   bool
	known                 bool // false: could not be measured
}

type bench struct {
	quick   bool
	repo    string
	tmp     string
	arena   string
	openl   string
	kits    []string // wasm files of the starter kits (bench bots)
	rows    []row
	verbose bool
	seedDir string
	boards  int
	// arenaBin, when set, is used instead of a build of ./cmd/arena.
	arenaBin string
	// matchNice, when 0 or more, is passed to arena serve as --match-nice.
	matchNice int
	// matchBatch passes --match-batch to arena serve.
	matchBatch bool
}

// defaults are the flags of the sections that run arena serve on its
// defaults: only -match-nice and -match-batch, when given.
func (b *bench) defaults(flags ...string) []string {
	if b.matchNice >= 0 {
		flags = append(flags, "--match-nice", strconv.Itoa(b.matchNice))
	}
	if b.matchBatch {
		flags = append(flags, "--match-batch")
	}
	return flags
}

func main() {
	quick := flag.Bool("quick", false, "fewer iterations and shorter windows (a CI-sized check of the command itself)")
	only := flag.String("only", "", "comma-separated sections to run: roundtrip,meter,cost,throughput,latency (default all)")
	seedDir := flag.String("seed-dir", "", "keep the 100,000-match data directory here and reuse it on later runs (default: seeded afresh in a temporary directory)")
	verbose := flag.Bool("v", false, "print the commands' output")
	arenaBin := flag.String("arena", "", "use this arena binary instead of building ./cmd/arena (to compare builds)")
	matchNice := flag.Int("match-nice", -1, "pass --match-nice N to arena serve in the throughput and latency sections (default: serve's own default)")
	matchBatch := flag.Bool("match-batch", false, "pass --match-batch to arena serve in the throughput and latency sections")
	boards := flag.Int("boards", 0, "boards of the cost and throughput sections' round robins (default 20, 3 with -quick; 12 matches a board)")
	flag.Parse()
	repo, err := os.Getwd()
	must(err)
	tmp, err := os.MkdirTemp("", "arena-bench-")
	must(err)
	defer os.RemoveAll(tmp)
	b := &bench{quick: *quick, repo: repo, tmp: tmp, verbose: *verbose, seedDir: *seedDir, boards: *boards, arenaBin: *arenaBin, matchNice: *matchNice, matchBatch: *matchBatch}
	want := func(s string) bool { return *only == "" || slices.Contains(strings.Split(*only, ","), s) }
	start := time.Now()
	fmt.Printf("arena bench: %d cores, load average %s, quick=%v\n", runtime.NumCPU(), loadavg(), b.quick)
	if want("roundtrip") {
		b.roundTrip()
	}
	if want("meter") {
		b.meter()
	}
	if want("cost") || want("throughput") || want("latency") {
		b.build()
	}
	if want("cost") {
		b.cost()
	}
	if want("throughput") {
		b.throughput()
	}
	if want("latency") {
		b.latency()
	}
	fmt.Printf("\n%-62s %-24s %-14s %s\n", "figure", "measured", "target", "")
	met := 0
	for _, r := range b.rows {
		verdict := "not met"
		switch {
		case !r.known:
			verdict = "not measured"
		case r.met:
			verdict = "met"
			met++
		}
		fmt.Printf("%-62s %-24s %-14s %s\n", r.figure, r.value, r.target, verdict)
	}
	fmt.Printf("\n%d of %d targets met; %s in all, load average at the end %s\n", met, len(b.rows), time.Since(start).Round(time.Second), loadavg())
}

func (b *bench) add(figure, value, target string, met bool) {
	b.rows = append(b.rows, row{figure: figure, value: value, target: target, met: met, known: true})
	fmt.Printf("  %s: %s (target %s)\n", figure, value, target)
}

func (b *bench) missing(figure, target, why string) {
	b.rows = append(b.rows, row{figure: figure, value: "-", target: target})
	fmt.Printf("  %s: not measured: %s\n", figure, why)
}

func (b *bench) iters(full, quick int) int {
	if b.quick {
		return quick
	}
	return full
}

// goBench runs `go test -bench` in the repository and returns its output.
func (b *bench) goBench(pkg, pattern, benchtime string, count int) string {
	args := []string{"test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime, "-count", strconv.Itoa(count), pkg}
	fmt.Printf("go %s\n", strings.Join(args, " "))
	cmd := exec.Command("go", args...)
	cmd.Dir = b.repo
	out, err := cmd.CombinedOutput()
	if b.verbose || err != nil {
		os.Stdout.Write(out)
	}
	return string(out)
}

// benchValues returns, per sub-benchmark name (the part after the
// benchmark's name, without the -N suffix), every value of unit.
func benchValues(out, name, unit string) map[string][]float64 {
	re := regexp.MustCompile(`(?m)^Benchmark` + name + `(?:/(\S+?))?(?:-\d+)?\s+\d+\s+(.*)$`)
	vals := map[string][]float64{}
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			if f[i+1] == unit {
				v, err := strconv.ParseFloat(f[i], 64)
				if err == nil {
					vals[m[1]] = append(vals[m[1]], v)
				}
			}
		}
	}
	return vals
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// roundTrip: the sandbox's round trip for a trivial bot, against a Go
// channel ping-pong between two goroutines that BenchmarkRoundTrip runs in
// the same process, block by block with the round trips (pingpong-ns/op).
func (b *bench) roundTrip() {
	fmt.Println("\n== round trip (sandbox)")
	out := b.goBench("./sandbox/", "^BenchmarkRoundTrip$", "20000x", b.iters(3, 1))
	rt := benchValues(out, "RoundTrip", "ns/op")
	ping := benchValues(out, "RoundTrip", "pingpong-ns/op")
	for _, lang := range []string{"go", "c"} {
		v := rt[lang]
		fig := fmt.Sprintf("round trip, trivial %s bot (µs; x channel ping-pong)", langName(lang))
		if len(v) == 0 {
			b.missing(fig, "<= 3 µs", "no BenchmarkRoundTrip/"+lang+" result")
			continue
		}
		us := median(v) / 1000
		val := fmt.Sprintf("%.2f µs", us)
		if base := median(ping[lang]); base > 0 {
			val += fmt.Sprintf(" (%.1fx)", median(v)/base)
		} else {
			val += " (no ping-pong)"
		}
		b.add(fig, val, "<= 3 µs", us <= 3)
	}
}

func langName(l string) string {
	if l == "c" {
		return "C"
	}
	return "Go"
}

// meter: the CPU-time ratio of the metered search to the unmetered one,
// the median of several runs.
func (b *bench) meter() {
	fmt.Println("\n== metering overhead (sandbox)")
	out := b.goBench("./sandbox/", "^BenchmarkSearch$", b.pick("6x", "2x"), b.iters(8, 2))
	v := benchValues(out, "Search", "cpu-ratio")
	for _, l := range []struct {
		lang   string
		target float64
	}{{"go", 1.12}, {"c", 1.08}} {
		fig := fmt.Sprintf("metering, %s search, CPU metered / unmetered (median)", langName(l.lang))
		t := fmt.Sprintf("<= %.2f", l.target)
		if len(v[l.lang]) == 0 {
			b.missing(fig, t, "no BenchmarkSearch result")
			continue
		}
		m := median(v[l.lang])
		b.add(fig, fmt.Sprintf("%.3f (%d runs)", m, len(v[l.lang])), t, m <= l.target)
	}
}

func (b *bench) roundRobin() int {
	if b.boards > 0 {
		return b.boards
	}
	return b.iters(20, 3)
}

func (b *bench) pick(full, quick string) string {
	if b.quick {
		return quick
	}
	return full
}

// build builds arena, openloop and the starter kits the service plays.
func (b *bench) build() {
	fmt.Println("\n== building arena, scripts/openloop and the Dots and Boxes starter kits")
	b.arena = filepath.Join(b.tmp, "arena")
	b.openl = filepath.Join(b.tmp, "openloop")
	if b.arenaBin != "" {
		b.arena = b.arenaBin
	} else {
		b.run(b.repo, nil, "go", "build", "-o", b.arena, "./cmd/arena")
	}
	b.run(b.repo, nil, "go", "build", "-o", b.openl, "./scripts/openloop")
	goKit := filepath.Join(b.tmp, "kit-go.wasm")
	b.run(filepath.Join(b.repo, "games/dotsandboxes/kits/go/dots-and-boxes"), []string{"GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0"},
		"go", "build", "-trimpath", "-o", goKit, ".")
	b.kits = []string{goKit}
	cKit := filepath.Join(b.tmp, "kit-c.wasm")
	if err := b.try(filepath.Join(b.repo, "games/dotsandboxes/kits/c/dots-and-boxes"), nil, "clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-o", cKit, "main.c"); err == nil {
		b.kits = append(b.kits, cKit)
	} else {
		fmt.Println("  no C toolchain (scripts/install-toolchains.sh c): the Go kit plays every seat")
	}
	// Four entries: each kit twice under different names.
	for len(b.kits) < 4 {
		src := b.kits[len(b.kits)%2%len(b.kits)]
		dst := filepath.Join(b.tmp, fmt.Sprintf("kit%d.wasm", len(b.kits)))
		data, err := os.ReadFile(src)
		must(err)
		must(os.WriteFile(dst, data, 0o644))
		b.kits = append(b.kits, dst)
	}
}

func (b *bench) run(dir string, env []string, name string, args ...string) {
	if err := b.try(dir, env, name, args...); err != nil {
		fail("%s %s: %v", name, strings.Join(args, " "), err)
	}
}

func (b *bench) try(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}

// tournament plays `arena tournament` on the kits (a round robin, both
// seat orders, on `boards` boards) and returns the matches it played,
// their wall time and the process's CPU time.
func (b *bench) tournament(boards int) (matches int, wall, cpu time.Duration) {
	args := []string{"tournament", "--game", "dots-and-boxes", "--boards", strconv.Itoa(boards), "--json"}
	for _, k := range b.kits {
		args = append(args, "--bot", spec.Spec{Kind: spec.Wasm, Path: k}.String())
	}
	cmd := exec.Command(b.arena, args...)
	cmd.Env = append(os.Environ(), "ARENA_WASM_CACHE="+filepath.Join(b.tmp, "wasm-cache"))
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	must(cmd.Run())
	wall = time.Since(t0)
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	n := len(b.kits)
	return n * (n - 1) * boards, wall, cpu
}

// server is a running `arena serve` (and its joined workers).
type server struct {
	b       *bench
	url     string
	data    string
	cmd     *exec.Cmd
	workers []*exec.Cmd
	token   string
	bots    []int64
	client  *http.Client
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	defer l.Close()
	return l.Addr().String()
}

// serve starts `arena serve` on data with extra flags and waits for it.
func (b *bench) serve(data string, extra ...string) *server {
	addr := freePort()
	args := append([]string{"serve", "--addr", addr, "--data", data}, extra...)
	cmd := exec.Command(b.arena, args...)
	cmd.Env = append(os.Environ(), "ARENA_WASM_CACHE="+filepath.Join(b.tmp, "wasm-cache"))
	if p := os.Getenv("BENCH_SERVE_PROFILE"); p != "" {
		cmd.Env = append(cmd.Env, "ARENA_CPUPROFILE="+p)
	}
	logf, err := os.Create(filepath.Join(b.tmp, "serve.log"))
	must(err)
	cmd.Stderr = logf
	must(cmd.Start())
	s := &server{b: b, url: "http://" + addr, data: data, cmd: cmd, client: &http.Client{Timeout: time.Minute}}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		resp, err := s.client.Get(s.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			log, _ := os.ReadFile(logf.Name())
			fail("arena serve did not start:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// worker joins an `arena worker` with parallel matches.
func (s *server) worker(parallel int) {
	cmd := exec.Command(s.b.arena, "worker", "--creds", filepath.Join(s.data, "worker.creds"), "--parallel", strconv.Itoa(parallel),
		"--name", fmt.Sprintf("bench%d", len(s.workers)), "--cache", filepath.Join(s.b.tmp, "worker-cache"))
	cmd.Env = append(os.Environ(), "ARENA_WASM_CACHE="+filepath.Join(s.b.tmp, "wasm-cache"))
	if p := os.Getenv("BENCH_WORKER_PROFILE"); p != "" {
		cmd.Env = append(cmd.Env, "ARENA_CPUPROFILE="+p)
	}
	logf, err := os.Create(filepath.Join(s.b.tmp, fmt.Sprintf("worker%d.log", len(s.workers))))
	must(err)
	cmd.Stderr = logf
	must(cmd.Start())
	s.workers = append(s.workers, cmd)
	for i := 0; s.metric("arena_workers") < float64(len(s.workers)); i++ {
		if i > 600 {
			fail("the worker did not join")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *server) stop() {
	for _, c := range append([]*exec.Cmd{s.cmd}, s.workers...) {
		c.Process.Signal(syscall.SIGTERM)
	}
	for _, c := range append([]*exec.Cmd{s.cmd}, s.workers...) {
		c.Wait()
	}
}

// metric sums a /metrics family's samples whose labels contain match.
func (s *server) metric(name string, match ...string) float64 {
	resp, err := s.client.Get(s.url + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+" ") && !strings.HasPrefix(line, name+"{") {
			continue
		}
		ok := true
		for _, m := range match {
			ok = ok && strings.Contains(line, m)
		}
		if f := strings.Fields(line); ok && len(f) >= 2 {
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			sum += v
		}
	}
	return sum
}

func (s *server) do(method, path string, body io.Reader, ctype string, out any) int {
	req, err := http.NewRequest(method, s.url+path, body)
	must(err)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		fail("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			fail("%s %s: %v: %s", method, path, err, data)
		}
	}
	return resp.StatusCode
}

// upload signs up and uploads the kits as bots kit0..kit3.
func (s *server) upload() {
	var acc struct{ Token string }
	if code := s.do("POST", "/api/v1/accounts", strings.NewReader(`{"handle":"bench","password":"bench-password"}`), "application/json", &acc); code != 201 && code != 200 {
		fail("sign-up: %d", code)
	}
	s.token = acc.Token
	for i, k := range s.b.kits {
		data, err := os.ReadFile(k)
		must(err)
		var up struct{ Bot struct{ ID int64 } }
		if code := s.do("POST", fmt.Sprintf("/api/v1/games/dots-and-boxes/bots/kit%d", i), bytes.NewReader(data), "application/wasm", &up); code != 201 {
			fail("upload kit%d: %d (see %s)", i, code, filepath.Join(s.b.tmp, "serve.log"))
		}
		s.bots = append(s.bots, up.Bot.ID)
	}
}

// challenges plays n challenges between the kits (every ordered pair in
// turn, seed i), keeping the challenges' share of the queue full, and
// returns once all n have ended. It uses one kept-alive connection, so
// that the load it adds is small beside the matches'.
func (s *server) challenges(n int) {
	ended0 := s.metric("arena_matches_total")
	var pairs [][2]int64
	for _, a := range s.bots {
		for _, c := range s.bots {
			if a != c {
				pairs = append(pairs, [2]int64{a, c})
			}
		}
	}
	for i := 0; i < n; {
		p := pairs[i%len(pairs)]
		body := fmt.Sprintf(`{"game":"dots-and-boxes","seed":%d,"bots":[%d,%d]}`, i+1, p[0], p[1])
		switch code := s.do("POST", "/api/v1/challenges", strings.NewReader(body), "application/json", nil); code {
		case 201:
			i++
		case 503, 429:
			// The queue is full: its share holds several matches a
			// worker, so a pause of a few matches' length keeps the
			// workers busy while the refused requests (each an
			// authenticated request the server pays for) stay few.
			time.Sleep(50 * time.Millisecond)
		default:
			fail("challenge: %d", code)
		}
	}
	for s.metric("arena_matches_total") < ended0+float64(n) {
		time.Sleep(20 * time.Millisecond)
	}
	if f := s.metric("arena_matches_total", `state="failed"`); f > 0 {
		fail("%v matches failed (see %s)", f, s.b.tmp)
	}
}

// procCPU is a process's user+system CPU time so far.
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	must(err)
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

// cost: the server's own CPU per match, and the server's plus a joined
// worker's, against the raw tournament's CPU per match, same bots.
func (b *bench) cost() {
	fmt.Println("\n== cost per match: arena serve with a worker joined over NATS, against arena tournament")
	boards := b.roundRobin()
	b.tournament(1) // compiles the kits into the cache
	// A match's CPU is the tournament's marginal cost: the CPU of a long
	// one less that of a one-board one, which pays the same start-up.
	n1, _, cpu1 := b.tournament(1)
	n, _, tcpu := b.tournament(boards)
	perMatch := (tcpu - cpu1) / time.Duration(n-n1)
	fmt.Printf("  arena tournament: %d matches, %v CPU (%d matches: %v), %.1f ms a match\n", n, tcpu.Round(time.Millisecond), n1, cpu1.Round(time.Millisecond), ms(perMatch))
	data := filepath.Join(b.tmp, "cost-data")
	s := b.serve(data, "--no-workers", "--nats-listen", freePort(), "--games", "none", "--challenges-per-minute", "1000000")
	defer s.stop()
	s.worker(runtime.NumCPU())
	s.upload()
	s.challenges(len(s.bots) * (len(s.bots) - 1)) // the worker compiles what it has not yet
	time.Sleep(time.Second)
	sc0, wc0 := procCPU(s.cmd.Process.Pid), procCPU(s.workers[0].Process.Pid)
	s.challenges(n)
	sc, wc := procCPU(s.cmd.Process.Pid)-sc0, procCPU(s.workers[0].Process.Pid)-wc0
	fmt.Printf("  arena serve + worker: %d matches, server %v CPU (%.1f ms a match), worker %v (%.1f ms a match)\n", n,
		sc.Round(time.Millisecond), ms(sc/time.Duration(n)), wc.Round(time.Millisecond), ms(wc/time.Duration(n)))
	server := float64(sc) / float64(n) / float64(perMatch)
	total := float64(sc+wc) / float64(n) / float64(perMatch)
	b.add("server's own CPU per match / the match's (tournament)", fmt.Sprintf("%.3f (%.1f / %.1f ms)", server, ms(sc/time.Duration(n)), ms(perMatch)), "<= 0.10", server <= 0.10)
	b.add("server + NATS worker CPU per match / tournament's", fmt.Sprintf("%.2fx", total), "<= 1.15x", total <= 1.15)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// throughput: `arena serve` on its defaults (in-process workers, matches
// lowered by --match-nice) against `arena tournament`, the same number of
// matches between the same bots, idle and then beside a process that keeps
// a core busy.
func (b *bench) throughput() {
	fmt.Println("\n== throughput: arena serve on its defaults against arena tournament, same bots")
	boards := b.roundRobin()
	b.tournament(1)
	data := filepath.Join(b.tmp, "throughput-data")
	s := b.serve(data, b.defaults("--games", "none", "--challenges-per-minute", "1000000")...)
	defer s.stop()
	s.upload()
	s.challenges(len(s.bots) * (len(s.bots) - 1))
	for _, busy := range []bool{false, true} {
		var spin *exec.Cmd
		if busy {
			spin = exec.Command(os.Args[0], "-spin")
			spin.Path, _ = os.Executable()
			spin.Args = []string{spin.Path, "-spin"}
			must(spin.Start())
		}
		// The tournament's rate is its marginal one, as its CPU is in
		// cost: a one-board run's time (start-up, loading the compiled
		// modules) taken off, over the matches beyond it.
		n1, wall1, cpu1 := b.tournament(1)
		n, twall, tcpu := b.tournament(boards)
		twall -= wall1
		t0, c0 := time.Now(), procCPU(s.cmd.Process.Pid)
		s.challenges(n)
		swall, scpu := time.Since(t0), procCPU(s.cmd.Process.Pid)-c0
		if spin != nil {
			spin.Process.Kill()
			spin.Wait()
		}
		raw, svc := float64(n-n1)/twall.Minutes(), float64(n)/swall.Minutes()
		label := "serve / tournament, matches a minute, alone"
		if busy {
			label = "serve / tournament, beside a busy process"
		}
		// CPU a match, which the load moves less than the rates: what
		// the server's way of running matches costs beyond the match.
		fmt.Printf("  %d matches: tournament %.0f a minute, serve %.0f a minute; CPU a match: tournament %.1f ms, serve %.1f ms\n",
			n, raw, svc, ms((tcpu-cpu1)/time.Duration(n-n1)), ms(scpu/time.Duration(n)))
		b.add(label, fmt.Sprintf("%.2f (%.0f / %.0f)", svc/raw, svc, raw), ">= 0.95", svc/raw >= 0.95)
	}
}

// latency: API p50/p99 at a fixed rate, open loop, against a server on its
// defaults holding 100,000 finished matches, while rated matches run.
func (b *bench) latency() {
	fmt.Println("\n== API latency with many finished matches, and peak memory")
	stored := b.iters(100_000, 10_000)
	data := b.seedDir
	if data == "" {
		data = filepath.Join(b.tmp, "seeded")
	}
	if b.quick && b.seedDir == "" {
		data = filepath.Join(b.tmp, "seeded-quick")
	}
	if _, err := os.Stat(filepath.Join(data, "arena.db")); err != nil {
		t0 := time.Now()
		cmd := exec.Command(b.arena, "seed", "--matches", strconv.Itoa(stored), "--data", data)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		must(cmd.Run())
		fmt.Printf("  arena seed --matches %d: %v\n", stored, time.Since(t0).Round(time.Second))
	}
	s := b.serve(data, b.defaults()...)
	defer s.stop()
	time.Sleep(5 * time.Second) // rated matches under way
	var bots struct {
		Rows []struct {
			BotID int64 `json:"bot_id"`
		}
	}
	s.do("GET", "/api/v1/games/dots-and-boxes/leaderboard", nil, "", &bots)
	bot := int64(1)
	if len(bots.Rows) > 0 {
		bot = bots.Rows[0].BotID
	}
	urls := []string{
		"/api/v1/games/dots-and-boxes/leaderboard",
		"/api/v1/matches?game=dots-and-boxes&limit=50",
		fmt.Sprintf("/api/v1/matches?bot=%d&limit=50", bot),
		"/api/v1/matches?game=dots-and-boxes&limit=50&before=1000",
		"/api/v1/matches?state=live&limit=50",
	}
	secs := b.iters(15, 4)
	// The sender runs ahead of the server (openloop -nice): on this
	// machine it stands in for a client on another one.
	args := []string{"-rate", "1000", "-duration", fmt.Sprintf("%ds", secs), "-warmup", "3s", "-nice", strconv.Itoa(senderNice)}
	for _, u := range urls {
		args = append(args, s.url+u)
	}
	fmt.Printf("  openloop %s\n", strings.Join(args, " "))
	out, err := exec.Command(b.openl, args...).Output()
	must(err)
	if b.verbose {
		os.Stdout.Write(out)
	}
	re := regexp.MustCompile(`(?m)^url=all n=(\d+) errors=(\d+) p50_ms=([0-9.]+) p90_ms=[0-9.]+ p99_ms=([0-9.]+) .* late_ms=([0-9.]+)$`)
	m := re.FindStringSubmatch(string(out))
	if m == nil {
		fail("openloop: %s", out)
	}
	sender := "nice 0"
	if n := regexp.MustCompile(`(?m)^openloop: (nice -?\d+)`).FindStringSubmatch(string(out)); n != nil {
		sender = n[1]
	}
	p50, _ := strconv.ParseFloat(m[3], 64)
	p99, _ := strconv.ParseFloat(m[4], 64)
	errs, _ := strconv.Atoi(m[2])
	label := fmt.Sprintf("API lists at 1,000 requests/s, %d matches", stored)
	b.add(label+": p50", fmt.Sprintf("%.2f ms", p50), "<= 2 ms", p50 <= 2 && errs == 0)
	b.add(label+": p99", fmt.Sprintf("%.1f ms (sender at %s, late %s ms)", p99, sender, m[5]), "<= 10 ms", p99 <= 10 && errs == 0)
	hwm := status(s.cmd.Process.Pid, "VmHWM")
	b.add("peak resident memory of arena serve (defaults, this run)", fmt.Sprintf("%d MiB", hwm/1024), "<= 1024 MiB", hwm/1024 <= 1024)
}

// senderNice is the nice value the latency section's load generator asks
// for (scripts/openloop -nice): well ahead of the server's threads, so that
// what it sends late is the server's doing and not its own.
const senderNice = -10

// status reads a kB field of /proc/PID/status.
func status(pid int, key string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	must(err)
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key+":" {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	return 0
}

func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

func must(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(1)
}

func init() {
	// -spin: the busy neighbour of the throughput section, one core's worth.
	if len(os.Args) == 2 && os.Args[1] == "-spin" {
		ctx := context.Background()
		x := 0
		for ctx.Err() == nil {
			x++
		}
		os.Exit(x)
	}
}
