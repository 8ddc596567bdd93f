// Package sandbox runs untrusted WebAssembly bots: WASI preview 1 commands
// that talk over stdin and stdout, metered in fuel (instructions) by the
// rewriting pass of package sandbox/meter, with no files, no network, no
// environment, virtual clocks and seeded randomness. It knows no game: it
// moves lines in and out and keeps the fuel books. docs/sandbox.md tells the
// whole story; docs/bots.md is the contract.
package sandbox

import (
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/arenabots/arena/internal/hashing"
	"github.com/arenabots/arena/sandbox/meter"
)

// DefaultMemoryLimit is the cap on a bot's linear memory and tables together
// (docs/bots.md).
const DefaultMemoryLimit = meter.MemoryCap

// The host module every bot may import from, and its one function.
const (
	hostModule   = "arena"
	hostFuelLeft = "fuel_left"
	wasiModule   = wasi_snapshot_preview1.ModuleName
)

const wasmPageSize = 64 << 10

// Options configures a Runtime.
type Options struct {
	// CacheDir keeps instrumented modules and wazero's compiled code between
	// processes, keyed by the module's sha256, so a bot compiles once per
	// machine. Empty means an in-process cache only.
	CacheDir string
	// MemoryLimit caps every instance's linear memory, in bytes (rounded down
	// to whole 64 KiB pages). Zero means DefaultMemoryLimit.
	MemoryLimit uint64
	// CacheBytes bounds the disk cache (CacheDir, or the Runtime's own
	// temporary directory): after each new compile the least recently
	// used files go until it fits (cachetrim.go). Zero means
	// DefaultCacheBytes.
	CacheBytes int64
	// CompiledBytes bounds the memory of the modules kept compiled, each
	// counted at what it costs resident (residentCost): past it,
	// the least recently compiled or started modules are closed once no
	// instance runs them. Zero means DefaultCompiledBytes.
	CompiledBytes int64
	// CompileSlots is the number of modules compiled at once; zero means
	// one per core, at least two (compilegate.go).
	CompileSlots int
	// CompileBudget is the compile CPU one owner (CompileOptions.Owner)
	// may spend a day; zero means DefaultCompileBudget.
	CompileBudget time.Duration
}

// DefaultCompiledBytes is the default of Options.CompiledBytes: the house's
// ladder (15 Go modules, about 27 MiB each) and a few more Go bots, or
// hundreds of C ones. A module evicted and wanted again is loaded from the
// disk cache (about 0.2 s of CPU for a Go bot), compiled again (in the
// child) only when the disk cache has lost it.
const DefaultCompiledBytes = 512 << 20

// residentCost is what a compiled module costs the process, counted against
// Options.CompiledBytes: its machine code and wazero's decoded module (the
// function bodies, data segments, declared locals...), as the compiler's
// child measured them, and the deflated copy of the metered module. Where
// the child could not measure (no /proc for the code), the ratios of Go
// bots stand in: per metered byte, 3.2 bytes of code and 1.6 decoded. A Go
// bot of 5.3 MB metered keeps 17 MiB of code, 8 MiB decoded and a deflated
// copy of 1.5 MiB (docs/performance.md, "Memory of `arena serve` on its defaults").
func residentCost(size compiledSize, metered, packed int) int64 {
	if size.code <= 0 {
		size.code = int64(metered) * 32 / 10
	}
	if size.decoded <= 0 {
		size.decoded = int64(metered) * 16 / 10
	}
	return size.code + size.decoded + int64(packed)
}

// A Runtime compiles modules and starts instances of them. It is safe for
// concurrent use; one per process is the intended use (see Default).
type Runtime struct {
	wz    wazero.Runtime
	cache wazero.CompilationCache
	dir   string
	wasi  api.Module // to check a bot's imports against what is provided
	host  api.Module

	gate *compileGate // the compile slots, taken for a whole compile

	mu       sync.Mutex                // guards the fields below, never held for a compile
	compiled map[string]*Module        // by sha256 of the original bytes
	inflight map[string]chan struct{}  // the keys being compiled, closed when done
	files    map[hashing.FileID]string // CompileFile's sha256 of a file, by its identity
	refused  *refusalCache             // the latest refusals, by the same key
	memBytes int64                     // Module.cost of the modules in compiled
	memMax   int64                     // the bound of memBytes
	clock    uint64                    // orders the uses of modules, for eviction

	pages      uint32 // the memory limit, in pages
	cacheBytes int64  // the bound of the disk cache
	cacheRoot  string // the directory that holds all of the disk cache
	wazeroDir  string // wazero's compilation cache
	tmpDir     string // removed at Close: the cache when Options has none
}

// A Module is a bot's module, checked, metered and compiled.
type Module struct {
	// SHA256 is the hex sha256 of the module as the user gave it.
	SHA256 string
	// packed is the metered module, deflated (a third of its size), kept
	// to compile it again after an eviction: a Go bot's metered module is
	// 5 MB, and a server keeps dozens.
	packed []byte
	cost   int64 // its share of memMax: residentCost
	// dataSpans are the pages its data segments write at instantiation,
	// handed out before the copy (prefault).
	dataSpans []meter.Span
	used      uint64 // the Runtime's clock at its last use; under Runtime.mu

	mu       sync.Mutex
	compiled wazero.CompiledModule // nil once closed
	profiled wazero.CompiledModule // compiled with the profile's listeners, once asked for (profile.go)
	users    int                   // instances running it
	evicted  bool                  // out of the Runtime's map
}

// NewRuntime makes a Runtime. Close it to free the compiled code.
func NewRuntime(ctx context.Context, opt Options) (*Runtime, error) {
	limit := opt.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	// Tables take their share of the cap first (the meter bounds them).
	const tablePages = meter.MaxTableElements * meter.TableElementBytes / wasmPageSize
	pages := int64(limit/wasmPageSize) - tablePages
	if pages <= 0 || pages > 65536 {
		return nil, fmt.Errorf("sandbox: memory limit %d bytes out of range", limit)
	}
	cfg := runtimeConfig(uint32(pages))
	r := &Runtime{compiled: map[string]*Module{}, files: map[hashing.FileID]string{}, refused: newRefusalCache(maxRefusals), inflight: map[string]chan struct{}{}, gate: newCompileGate(opt.CompileSlots, opt.CompileBudget), pages: uint32(pages), cacheBytes: opt.CacheBytes, memMax: opt.CompiledBytes}
	if r.cacheBytes <= 0 {
		r.cacheBytes = DefaultCacheBytes
	}
	if r.memMax <= 0 {
		r.memMax = DefaultCompiledBytes
	}
	// wazero's compiled code goes through a cache on disk, where the child
	// process that compiles it leaves it (compilechild.go): the user's
	// cache directory, or a directory of this Runtime's own.
	if opt.CacheDir != "" {
		r.dir = opt.CacheDir
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: cache directory: %w", err)
		}
		r.wazeroDir = filepath.Join(r.dir, "wazero")
		r.cacheRoot = r.dir
	} else {
		tmp, err := os.MkdirTemp("", "arena-wasm-")
		if err != nil {
			return nil, fmt.Errorf("sandbox: cache directory: %w", err)
		}
		r.tmpDir, r.wazeroDir, r.cacheRoot = tmp, tmp, tmp
	}
	cache, err := wazero.NewCompilationCacheWithDir(r.wazeroDir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: compilation cache: %w", err)
	}
	r.cache = cache
	cfg = cfg.WithCompilationCache(cache)
	r.wz = wazero.NewRuntimeWithConfig(ctx, cfg)
	// The WASI functions charge fuel by their arguments (hostcost.go).
	if _, err := wasi_snapshot_preview1.Instantiate(experimental.WithFunctionListenerFactory(ctx, hostCharger{}), r.wz); err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("sandbox: WASI: %w", err)
	}
	r.wasi = r.wz.Module(wasiModule)
	if r.host, err = instantiateHost(ctx, r.wz); err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("sandbox: host functions: %w", err)
	}
	return r, nil
}

// Close frees everything the Runtime compiled. Instances must be stopped first.
func (r *Runtime) Close(ctx context.Context) error {
	err := r.wz.Close(ctx)
	if r.cache != nil {
		if cerr := r.cache.Close(ctx); err == nil {
			err = cerr
		}
	}
	if r.tmpDir != "" {
		os.RemoveAll(r.tmpDir)
	}
	return err
}

var (
	defaultOnce sync.Once
	defaultRT   *Runtime
	defaultErr  error
)

// Default returns the process's shared Runtime, with its disk cache in the
// user's cache directory ($XDG_CACHE_HOME/arena/wasm or ~/.cache/arena/wasm),
// or $ARENA_WASM_CACHE when set.
func Default() (*Runtime, error) {
	defaultOnce.Do(func() {
		dir := os.Getenv("ARENA_WASM_CACHE")
		if dir == "" {
			if base, err := os.UserCacheDir(); err == nil {
				dir = filepath.Join(base, "arena", "wasm")
			}
		}
		defaultRT, defaultErr = NewRuntime(context.Background(), Options{CacheDir: dir})
	})
	return defaultRT, defaultErr
}

// CompileOptions says whose compile it is and which limit it is held to.
type CompileOptions struct {
	// Owner is the account the module comes from: it compiles one module
	// at a time and spends its daily budget (compilegate.go). "" is the
	// platform's own compiles (matches, the command line), of modules
	// accepted before or of the user's own machine.
	Owner string
	// Upload holds the compile to CompileTimeLimit, the limit a module is
	// accepted under; every other compile gets CompileMargin times that,
	// so that what was accepted once compiles on any machine and load.
	Upload bool
}

// Compile is CompileWith for the platform: no owner, the wide limit.
func (r *Runtime) Compile(ctx context.Context, wasm []byte) (*Module, error) {
	return r.CompileWith(ctx, wasm, CompileOptions{})
}

// CompileWith checks, meters and compiles a module, or returns an error that
// says what is wrong with it (a *meter.Error for a refused module). The
// result is cached by the module's sha256: in the process, and on disk when
// the Runtime has a cache directory.
func (r *Runtime) CompileWith(ctx context.Context, wasm []byte, opt CompileOptions) (_ *Module, err error) {
	// The meter and wazero return errors for bad modules; this is the last
	// line of defence should either panic on one.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("compile: internal error on this module: %v", p)
		}
	}()
	key := hashing.SHA256Hex(wasm)
	for {
		if m, found, err := r.lookupFor(key, opt.Upload); found {
			return m, err
		}
		// One compile of a key at a time: a second caller waits for the
		// first and then finds its result (or compiles it itself, if the
		// first was cancelled or hit a limit that does not hold for it).
		r.mu.Lock()
		wait, busy := r.inflight[key]
		if !busy {
			r.inflight[key] = make(chan struct{})
		}
		r.mu.Unlock()
		if !busy {
			break
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, fmt.Errorf("sandbox: waiting to compile the module was cancelled: %w", context.Cause(ctx))
		}
	}
	defer func() {
		r.mu.Lock()
		close(r.inflight[key])
		delete(r.inflight, key)
		r.mu.Unlock()
	}()
	// The caches stay open meanwhile (r.mu is not held), so a bot compiled
	// before never waits behind a stranger's slow compile; and the slots
	// are shared fairly (compilegate.go), so neither does a stranger's
	// new bot.
	if err := r.gate.acquire(ctx, opt.Owner); err != nil {
		return nil, err
	}
	var cpu time.Duration
	defer func() { r.gate.release(opt.Owner, cpu) }()
	limit := CompileTimeLimit
	if !opt.Upload {
		limit *= CompileMargin
	}
	m, cpu, err := r.compile(ctx, key, wasm, limit)
	if err == nil {
		trimCache(r.cacheRoot, r.cacheBytes, time.Now())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		// A refusal is remembered too: a module that runs the compiler's
		// child out of its CPU time costs 10 s of CPU every time it is
		// offered, and a stranger can offer it again and again. One for
		// the time an upload's compile took holds for uploads only: the
		// platform's limit is wider.
		if IsRefused(err) {
			err = boundRefusal(err)
			var slow *timeRefusal
			if errors.As(err, &slow) && opt.Upload {
				r.refused.put(uploadKey(key), err)
			} else {
				r.refused.put(key, err)
			}
		}
		return nil, err
	}
	r.clock++
	m.used = r.clock
	r.compiled[key] = m
	r.memBytes += m.cost
	r.evict(ctx, m)
	return m, nil
}

// uploadKey is the refusal cache's key of a refusal that holds for
// uploads only.
func uploadKey(key string) string { return "upload " + key }

// lookupFor is lookup, for an upload's compile or another.
func (r *Runtime) lookupFor(key string, upload bool) (m *Module, found bool, err error) {
	if m, found, err := r.lookup(key); found || !upload {
		return m, found, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.refused.get(uploadKey(key)); ok {
		return nil, true, e
	}
	return nil, false, nil
}

// lookup finds key among the compiled modules or the refusals.
func (r *Runtime) lookup(key string) (m *Module, found bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock++
	if m, ok := r.compiled[key]; ok {
		m.used = r.clock
		return m, true, nil
	}
	if e, ok := r.refused.get(key); ok {
		return nil, true, e
	}
	return nil, false, nil
}

// compile meters and compiles a module that is in neither cache, the
// compiler's child held to limit of CPU time, and returns the CPU time the
// child took. The caller holds a slot of r.gate.
func (r *Runtime) compile(ctx context.Context, key string, wasm []byte, limit time.Duration) (*Module, time.Duration, error) {
	metered, err := r.instrument(key, wasm)
	if err != nil {
		return nil, 0, err
	}
	cm, size, err := r.compileMetered(ctx, metered, limit)
	if err != nil {
		return nil, size.cpu, err
	}
	if err := r.checkImports(cm); err != nil {
		cm.Close(ctx)
		return nil, size.cpu, err
	}
	packed, err := pack(metered)
	if err != nil {
		cm.Close(ctx)
		return nil, size.cpu, err
	}
	return &Module{SHA256: key, compiled: cm, packed: packed, cost: residentCost(size, len(metered), len(packed)),
		dataSpans: meter.DataSpans(metered, hostPageSize)}, size.cpu, nil
}

// compileMetered compiles metered bytes: the child compiles them into the
// cache, within its limits; the compile here then only decodes the module
// and loads the child's machine code. The caller holds a slot of r.gate.
func (r *Runtime) compileMetered(ctx context.Context, metered []byte, limit time.Duration) (wazero.CompiledModule, compiledSize, error) {
	size, err := r.compileInChild(ctx, metered, limit)
	if err != nil {
		return nil, size, err
	}
	cm, err := r.wz.CompileModule(ctx, metered)
	if err != nil {
		// The meter checks the module's structure; wazero also validates
		// every function body and the memory limit. Either way the module
		// is at fault.
		return nil, size, &meter.Error{Msg: "the module does not validate: " + err.Error()}
	}
	return cm, size, nil
}

// pack deflates a metered module for Module.packed; unpack restores it.
func pack(metered []byte) ([]byte, error) {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestSpeed)
	if err == nil {
		_, err = w.Write(metered)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: keeping the metered module: %w", err)
	}
	return bytes.Clone(b.Bytes()), nil
}

func unpack(packed []byte) ([]byte, error) {
	metered, err := io.ReadAll(flate.NewReader(bytes.NewReader(packed)))
	if err != nil {
		return nil, fmt.Errorf("sandbox: reading the kept metered module: %w", err)
	}
	return metered, nil
}

// evict takes the least recently used modules other than keep out of the
// map until the rest fit in memMax, and closes each one that no instance
// runs (release closes the others when their last instance ends). The
// caller holds r.mu.
func (r *Runtime) evict(ctx context.Context, keep *Module) {
	for r.memBytes > r.memMax {
		var lru *Module
		for _, m := range r.compiled {
			if m != keep && (lru == nil || m.used < lru.used) {
				lru = m
			}
		}
		if lru == nil {
			return
		}
		delete(r.compiled, lru.SHA256)
		r.memBytes -= lru.cost
		lru.mu.Lock()
		lru.evicted = true
		if lru.users == 0 && lru.compiled != nil {
			lru.compiled.Close(ctx)
			lru.compiled = nil
		}
		lru.mu.Unlock()
	}
}

// acquire returns m's compiled code for a new instance, counting the
// instance as a user until release. An evicted module that was closed is
// compiled again (it passed every check before) and comes back into the
// map, so a bot restarted mid-match after an eviction plays on. It is
// compiled as a new module is: in the child, under the compiler's limits
// (the disk cache may have lost its machine code since), one at a time, and
// with neither cache locked meanwhile.
func (r *Runtime) acquire(ctx context.Context, m *Module) (wazero.CompiledModule, error) {
	m.mu.Lock()
	if cm := m.compiled; cm != nil {
		m.users++
		m.mu.Unlock()
		return cm, nil
	}
	m.mu.Unlock()
	if err := r.gate.acquire(ctx, ""); err != nil {
		return nil, err
	}
	defer r.gate.release("", 0)
	for {
		r.mu.Lock()
		m.mu.Lock()
		if cm := m.compiled; cm != nil {
			if _, ok := r.compiled[m.SHA256]; m.evicted && !ok {
				r.compiled[m.SHA256] = m
				r.memBytes += m.cost
				m.evicted = false
			}
			r.clock++
			m.used = r.clock
			m.users++
			m.mu.Unlock()
			r.evict(ctx, m)
			r.mu.Unlock()
			return cm, nil
		}
		m.mu.Unlock()
		r.mu.Unlock()
		fresh, err := r.compileAgain(ctx, m)
		if err != nil {
			return nil, err
		}
		m.mu.Lock()
		if m.compiled == nil {
			m.compiled, fresh = fresh, nil
		}
		m.mu.Unlock()
		if fresh != nil {
			fresh.Close(ctx)
		}
	}
}

// compileAgain compiles an evicted module's kept metered bytes, under the
// platform's limit (it was accepted before). The caller holds a slot of
// r.gate.
func (r *Runtime) compileAgain(ctx context.Context, m *Module) (wazero.CompiledModule, error) {
	metered, err := unpack(m.packed)
	if err != nil {
		return nil, err
	}
	cm, _, err := r.compileMetered(ctx, metered, CompileTimeLimit*CompileMargin)
	if err != nil {
		return nil, fmt.Errorf("sandbox: compiling an evicted module again: %w", err)
	}
	return cm, nil
}

// release ends an instance's use of m.
func (r *Runtime) release(m *Module) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.users--
	if m.users == 0 && m.evicted && m.compiled != nil {
		m.compiled.Close(context.Background())
		m.compiled = nil
	}
}

// instrument returns the metered bytes, from the disk cache when they are
// there. The file name carries the cost model, so a new model re-meters; the
// file starts with the fingerprint of the executable that metered it, so a
// different build of the meter (a fix that kept the cost model) meters again
// rather than run another build's output, which could spend other fuel.
func (r *Runtime) instrument(key string, wasm []byte) ([]byte, error) {
	var path string
	fp := executableFingerprint()
	if r.dir != "" && fp != nil {
		path = filepath.Join(r.dir, fmt.Sprintf("%s.cost%d.wasm", key, meter.CostModel))
		if b, err := os.ReadFile(path); err == nil && bytes.HasPrefix(b, fp) {
			// Used now: the cache's trim removes the least recently used.
			t := time.Now()
			os.Chtimes(path, t, t)
			return b[len(fp):], nil
		}
	}
	metered, err := meter.Instrument(wasm)
	if err != nil {
		return nil, err
	}
	if path != "" {
		// Write then rename, so a concurrent process never reads half a file.
		// A failure to cache is not a failure to compile.
		tmp, err := os.CreateTemp(r.dir, key+".*.tmp")
		if err == nil {
			_, werr := tmp.Write(append(append([]byte(nil), fp...), metered...))
			cerr := tmp.Close()
			if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
				os.Remove(tmp.Name())
			}
		}
	}
	return metered, nil
}

// executableFingerprint is the hex sha256 of the running program, or nil
// when it cannot be read (then metered modules are not cached on disk).
var executableFingerprint = sync.OnceValue(func() []byte {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	sum, err := hashing.FileSHA256(exe)
	if err != nil {
		return nil
	}
	return []byte(sum)
})

// checkImports refuses, at compile time rather than at every start, imports
// that name a function the host does not provide or with the wrong type. The
// meter has already refused import modules other than WASI and arena.
func (r *Runtime) checkImports(cm wazero.CompiledModule) error {
	for _, imp := range cm.ImportedFunctions() {
		mod, name, _ := imp.Import()
		var want api.FunctionDefinition
		switch mod {
		case wasiModule:
			want = r.wasi.ExportedFunctionDefinitions()[name]
		case hostModule:
			want = r.host.ExportedFunctionDefinitions()[name]
		case meter.ImportModule:
			continue // the pass's own import
		}
		if want == nil {
			return &meter.Error{Msg: fmt.Sprintf("import %s.%s is not provided by the sandbox", meter.QuoteName(mod), meter.QuoteName(name))}
		}
		if !sameTypes(imp.ParamTypes(), want.ParamTypes()) || !sameTypes(imp.ResultTypes(), want.ResultTypes()) {
			return &meter.Error{Msg: fmt.Sprintf("import %s.%s has type %s, want %s",
				meter.QuoteName(mod), meter.QuoteName(name), signature(imp), signature(want))}
		}
	}
	return nil
}

func sameTypes(a, b []api.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func signature(f api.FunctionDefinition) string {
	s := "("
	for i, t := range f.ParamTypes() {
		if i > 0 {
			s += " "
		}
		s += api.ValueTypeName(t)
	}
	s += ") -> ("
	for i, t := range f.ResultTypes() {
		if i > 0 {
			s += " "
		}
		s += api.ValueTypeName(t)
	}
	return s + ")"
}

// IsRefused reports whether err is a refusal of the module itself (as opposed
// to a failure of the host), so callers can show it as the bot's fault.
func IsRefused(err error) bool {
	var me *meter.Error
	return errors.As(err, &me)
}
