package sandbox

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// A Profile records where a bot's fuel goes: by function (named from the
// module's name section), by host call, in start-up and in each answer.
// Give it to Config.Profile of every instance of one seat; read it once they
// have ended (WriteText, WritePprof).
//
// Profiling changes nothing the bot or the match can see: the module runs
// the same metered code, compiled with wazero's function listeners, which
// read the fuel counter at every call and return and run no guest
// instruction. Only the CPU time grows (a listener call per function call),
// so the CPU backstops of a profiled instance are widened by
// profileSlowdown.
type Profile struct {
	mu        sync.Mutex
	names     []string         // by function id
	host      []bool           // by function id: a host call
	byIndex   map[uint32]int32 // function id by the module's function index
	byHost    map[string]int32 // function id of a host call by its name
	nodes     []profNode       // the call tree; nodes[0] is the root, outside every function
	children  map[[2]int32]int32
	answers   []map[int32]int64 // self fuel by function id, per answer
	instances int
}

// The phases of an instance's fuel: start-up (to the first stdin read), an
// answer (from an observation's delivery to the answer's newline), and the
// rest (after an answer, until the next observation arrives).
const (
	phaseStartup = iota
	phaseAnswer
	phaseBetween
	phases
)

type profNode struct {
	parent int32
	fn     int32         // -1 for the root
	calls  [phases]int64 // entered in each phase
	self   [phases]int64
}

// NewProfile makes an empty profile.
func NewProfile() *Profile {
	return &Profile{
		byIndex:  map[uint32]int32{},
		byHost:   map[string]int32{},
		nodes:    []profNode{{parent: -1, fn: -1}},
		children: map[[2]int32]int32{},
	}
}

// profileSlowdown widens a profiled instance's CPU and wall-clock
// backstops: a listener call per function call makes a Go bot's calls
// several times slower, and a profiled answer must end as the plain one
// does.
const profileSlowdown = 20

// profiler is one instance's side of a profile: its call stack and the
// fuel counted so far. Guest goroutine only.
type profiler struct {
	p     *Profile
	in    *Instance
	stack []int32 // nodes, the root first
	last  int64   // spentTotal at the last event
	phase int
}

func newProfiler(p *Profile, in *Instance) *profiler {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.instances++
	p.mu.Unlock()
	return &profiler{p: p, in: in, stack: []int32{0}}
}

// account gives the fuel spent since the last event to the function on top
// of the stack, in the current phase (and answer). The caller holds p.mu.
func (pr *profiler) account() {
	now := pr.in.spentTotal()
	d := now - pr.last
	pr.last = now
	if d == 0 {
		return
	}
	top := pr.stack[len(pr.stack)-1]
	n := &pr.p.nodes[top]
	n.self[pr.phase] += d
	if pr.phase == phaseAnswer {
		pr.p.answers[len(pr.p.answers)-1][n.fn] += d
	}
}

// enter pushes the function fn (a Profile function id) after accounting.
func (pr *profiler) enter(fn int32) {
	p := pr.p
	pr.account()
	parent := pr.stack[len(pr.stack)-1]
	key := [2]int32{parent, fn}
	id, ok := p.children[key]
	if !ok {
		id = int32(len(p.nodes))
		p.nodes = append(p.nodes, profNode{parent: parent, fn: fn})
		p.children[key] = id
	}
	p.nodes[id].calls[pr.phase]++
	pr.stack = append(pr.stack, id)
}

func (pr *profiler) enterFunction(def api.FunctionDefinition) {
	if pr == nil {
		return
	}
	p := pr.p
	p.mu.Lock()
	defer p.mu.Unlock()
	fn, ok := p.byIndex[def.Index()]
	if !ok {
		name := def.Name()
		if name == "" {
			name = fmt.Sprintf("func[%d]", def.Index())
		}
		fn = p.addFunction(name, false)
		p.byIndex[def.Index()] = fn
	}
	pr.enter(fn)
}

// enterHost pushes a host call, before it charges its price.
func (pr *profiler) enterHost(name string) {
	if pr == nil {
		return
	}
	p := pr.p
	p.mu.Lock()
	defer p.mu.Unlock()
	fn, ok := p.byHost[name]
	if !ok {
		fn = p.addFunction(name, true)
		p.byHost[name] = fn
	}
	pr.enter(fn)
}

func (p *Profile) addFunction(name string, host bool) int32 {
	p.names = append(p.names, name)
	p.host = append(p.host, host)
	return int32(len(p.names) - 1)
}

// exit pops the function on top, after accounting its last fuel.
func (pr *profiler) exit() {
	if pr == nil {
		return
	}
	pr.p.mu.Lock()
	defer pr.p.mu.Unlock()
	pr.account()
	if len(pr.stack) > 1 {
		pr.stack = pr.stack[:len(pr.stack)-1]
	}
}

// setPhase starts a phase (a new answer for phaseAnswer).
func (pr *profiler) setPhase(phase int) {
	if pr == nil {
		return
	}
	pr.p.mu.Lock()
	defer pr.p.mu.Unlock()
	pr.account()
	pr.phase = phase
	if phase == phaseAnswer {
		pr.p.answers = append(pr.p.answers, map[int32]int64{})
	}
}

// stop accounts the instance's last fuel when it ends, however it ends.
func (pr *profiler) stop() {
	if pr == nil {
		return
	}
	pr.p.mu.Lock()
	defer pr.p.mu.Unlock()
	pr.account()
	pr.stack = pr.stack[:1]
}

// profileListeners makes the listeners of a profiled module's functions.
type profileListeners struct{}

func (profileListeners) NewFunctionListener(api.FunctionDefinition) experimental.FunctionListener {
	return profileListener{}
}

type profileListener struct{}

func instanceOf(ctx context.Context) *Instance {
	in, _ := ctx.Value(instanceKey{}).(*Instance)
	return in
}

func (profileListener) Before(ctx context.Context, _ api.Module, def api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	if in := instanceOf(ctx); in != nil {
		in.prof.enterFunction(def)
	}
}

func (profileListener) After(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64) {
	if in := instanceOf(ctx); in != nil {
		in.prof.exit()
	}
}

func (profileListener) Abort(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ error) {
	if in := instanceOf(ctx); in != nil {
		in.prof.exit()
	}
}

// profiled returns m's code compiled with the profile's listeners, compiling
// it the first time (in this process: the module has passed the child's
// compile already). It is kept until the Runtime closes. The caller has
// acquired m.
func (r *Runtime) profiled(ctx context.Context, m *Module) (wazero.CompiledModule, error) {
	// A compile slot, as every compile takes (compilegate.go).
	if err := r.gate.acquire(ctx, ""); err != nil {
		return nil, err
	}
	defer r.gate.release("", 0)
	m.mu.Lock()
	cm := m.profiled
	m.mu.Unlock()
	if cm != nil {
		return cm, nil
	}
	metered, err := unpack(m.packed)
	if err != nil {
		return nil, err
	}
	cm, err = r.wz.CompileModule(experimental.WithFunctionListenerFactory(ctx, profileListeners{}), metered)
	if err != nil {
		return nil, fmt.Errorf("sandbox: compiling the module for profiling: %w", err)
	}
	m.mu.Lock()
	m.profiled = cm
	m.mu.Unlock()
	return cm, nil
}

// ---- reading a profile ----

// A ProfileEntry is one function's or host call's fuel.
type ProfileEntry struct {
	Name  string
	Host  bool  // a host call (WASI or arena), priced by the host
	Calls int64 // calls made in the phase
	Self  int64 // spent in the function itself
	Total int64 // spent in it and what it called (each unit once, however deep the recursion)
}

// ProfileSummary is a profile in figures.
type ProfileSummary struct {
	Instances int
	Startup   []ProfileEntry // start-up, every instance together
	Answers   []ProfileEntry // every answer together
	// PerAnswer is the self fuel of each answer by function, top first.
	PerAnswer [][]ProfileEntry
	// StartupFuel, AnswerFuel, BetweenFuel: the totals of the phases
	// (BetweenFuel is spent after an answer, before the next observation).
	StartupFuel, AnswerFuel, BetweenFuel int64
}

// Summary sums the profile up, entries sorted by self fuel, the largest first.
func (p *Profile) Summary() ProfileSummary {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := ProfileSummary{Instances: p.instances}
	for _, n := range p.nodes {
		s.StartupFuel += n.self[phaseStartup]
		s.AnswerFuel += n.self[phaseAnswer]
		s.BetweenFuel += n.self[phaseBetween]
	}
	s.Startup = p.entries(phaseStartup)
	s.Answers = p.entries(phaseAnswer)
	for _, a := range p.answers {
		var es []ProfileEntry
		for fn, self := range a {
			es = append(es, ProfileEntry{Name: p.name(fn), Host: fn >= 0 && p.host[fn], Self: self, Total: self})
		}
		sortEntries(es)
		s.PerAnswer = append(s.PerAnswer, es)
	}
	return s
}

func (p *Profile) name(fn int32) string {
	if fn < 0 {
		return "(instantiation)"
	}
	return p.names[fn]
}

// entries sums the tree by function for one phase: self by the nodes of
// the function, total by its outermost nodes on every path.
func (p *Profile) entries(phase int) []ProfileEntry {
	total := make([]int64, len(p.nodes))     // inclusive fuel of each node
	for i := len(p.nodes) - 1; i >= 0; i-- { // children come after their parent
		total[i] += p.nodes[i].self[phase]
		if i > 0 {
			total[p.nodes[i].parent] += total[i]
		}
	}
	byFn := map[int32]*ProfileEntry{}
	get := func(fn int32) *ProfileEntry {
		e := byFn[fn]
		if e == nil {
			e = &ProfileEntry{Name: p.name(fn), Host: fn >= 0 && p.host[fn]}
			byFn[fn] = e
		}
		return e
	}
	for i, n := range p.nodes {
		if total[i] == 0 {
			continue
		}
		e := get(n.fn)
		e.Self += n.self[phase]
		e.Calls += n.calls[phase]
		outermost := i > 0 // the root's total would be everything
		for a := n.parent; a > 0 && outermost; a = p.nodes[a].parent {
			outermost = p.nodes[a].fn != n.fn
		}
		if outermost {
			e.Total += total[i]
		} else if i == 0 {
			e.Total = e.Self
		}
	}
	es := make([]ProfileEntry, 0, len(byFn))
	for _, e := range byFn {
		es = append(es, *e)
	}
	sortEntries(es)
	return es
}

func sortEntries(es []ProfileEntry) {
	slices.SortFunc(es, func(a, b ProfileEntry) int {
		if c := cmp.Compare(b.Self, a.Self); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// WriteText prints the profile for a person: start-up and answers by
// function (top entries, self fuel first), the host calls, and each
// answer's total with its top functions.
func (p *Profile) WriteText(w io.Writer, top int) {
	s := p.Summary()
	inst := max(s.Instances, 1)
	fmt.Fprintf(w, "fuel profile: %d instance(s), %d answer(s)\n", s.Instances, len(s.PerAnswer))
	fmt.Fprintf(w, "start-up: %s in all, %s an instance\n", FuelCount(s.StartupFuel), FuelCount(s.StartupFuel/int64(inst)))
	writeEntries(w, s.Startup, s.StartupFuel, top)
	if n := int64(len(s.PerAnswer)); n > 0 {
		fmt.Fprintf(w, "answers: %s in all, %s an answer\n", FuelCount(s.AnswerFuel), FuelCount(s.AnswerFuel/n))
		writeEntries(w, s.Answers, s.AnswerFuel, top)
	}
	if s.BetweenFuel > 0 {
		fmt.Fprintf(w, "after answers, before the next observation: %s in all\n", FuelCount(s.BetweenFuel))
	}
	fmt.Fprintln(w, "host calls, start-up + answers:")
	for i, es := range [][]ProfileEntry{s.Startup, s.Answers} {
		for _, e := range es {
			if e.Host {
				fmt.Fprintf(w, "  %-8s %-20s %8d calls %10s fuel\n", [...]string{"start-up", "answers"}[i], e.Name, e.Calls, FuelCount(e.Self))
			}
		}
	}
	fmt.Fprintln(w, "per answer (self fuel of its top functions):")
	for i, es := range s.PerAnswer {
		var sum int64
		for _, e := range es {
			sum += e.Self
		}
		var b strings.Builder
		for k, e := range es[:min(3, len(es))] {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %.0f%%", e.Name, 100*float64(e.Self)/float64(max(sum, 1)))
		}
		fmt.Fprintf(w, "  answer %d: %s: %s\n", i+1, FuelCount(sum), b.String())
	}
}

func writeEntries(w io.Writer, es []ProfileEntry, sum int64, top int) {
	fmt.Fprintf(w, "  %10s %6s %10s %6s %9s  %s\n", "self", "self%", "total", "total%", "calls", "function")
	for _, e := range es[:min(top, len(es))] {
		fmt.Fprintf(w, "  %10s %5.1f%% %10s %5.1f%% %9d  %s\n", FuelCount(e.Self), pct(e.Self, sum),
			FuelCount(e.Total), pct(e.Total, sum), e.Calls, e.Name)
	}
}

func pct(a, b int64) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// FuelCount writes a fuel figure briefly: 950, 12.3k, 4.56M.
func FuelCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
