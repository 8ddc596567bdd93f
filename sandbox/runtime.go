// Package sandbox runs untrusted WebAssembly bots: WASI preview 1 commands
// that talk over stdin and stdout, metered in fuel (instructions) by the
// rewriting pass of package sandbox/meter, with no files, no network, no
// environment, virtual clocks and seeded randomness. It knows no game: it
// moves lines in and out and keeps the fuel books. docs/sandbox.md tells the
// whole story; docs/bots.md is the contract.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

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
}

// A Runtime compiles modules and starts instances of them. It is safe for
// concurrent use; one per process is the intended use (see Default).
type Runtime struct {
	wz    wazero.Runtime
	cache wazero.CompilationCache
	dir   string
	wasi  api.Module // to check a bot's imports against what is provided
	host  api.Module

	mu       sync.Mutex
	compiled map[string]*Module // by sha256 of the original bytes
	refused  *refusalCache      // the latest refusals, by the same key

	pages     uint32 // the memory limit, in pages
	wazeroDir string // wazero's compilation cache
	tmpDir    string // removed at Close: the cache when Options has none
}

// A Module is a bot's module, checked, metered and compiled.
type Module struct {
	// SHA256 is the hex sha256 of the module as the user gave it.
	SHA256   string
	compiled wazero.CompiledModule
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
	r := &Runtime{compiled: map[string]*Module{}, refused: newRefusalCache(maxRefusals), pages: uint32(pages)}
	// wazero's compiled code goes through a cache on disk, where the child
	// process that compiles it leaves it (compilechild.go): the user's
	// cache directory, or a directory of this Runtime's own.
	if opt.CacheDir != "" {
		r.dir = opt.CacheDir
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: cache directory: %w", err)
		}
		r.wazeroDir = filepath.Join(r.dir, "wazero")
	} else {
		tmp, err := os.MkdirTemp("", "arena-wasm-")
		if err != nil {
			return nil, fmt.Errorf("sandbox: cache directory: %w", err)
		}
		r.tmpDir, r.wazeroDir = tmp, tmp
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

// Compile checks, meters and compiles a module, or returns an error that says
// what is wrong with it (a *meter.Error for a refused module). The result is
// cached by the module's sha256: in the process, and on disk when the Runtime
// has a cache directory.
func (r *Runtime) Compile(ctx context.Context, wasm []byte) (_ *Module, err error) {
	// The meter and wazero return errors for bad modules; this is the last
	// line of defence should either panic on one.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("compile: internal error on this module: %v", p)
		}
	}()
	key := hashing.SHA256Hex(wasm)
	// One lock for the whole compile: wazero recommends compiling a module in
	// one goroutine, and compiles are rare (once per bot per process).
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.compiled[key]; ok {
		return m, nil
	}
	// A refusal is remembered too: a module that runs the compiler's child
	// out of its CPU time costs 10 s of CPU, under this lock, every time
	// it is offered, and a stranger can offer it again and again.
	if e, ok := r.refused.get(key); ok {
		return nil, e
	}
	defer func() {
		if IsRefused(err) {
			r.refused.put(key, err)
		}
	}()
	metered, err := r.instrument(key, wasm)
	if err != nil {
		return nil, err
	}
	// The child compiles into the cache; the compile here then only
	// decodes the module and loads the child's machine code.
	if err := r.compileInChild(ctx, metered); err != nil {
		return nil, err
	}
	cm, err := r.wz.CompileModule(ctx, metered)
	if err != nil {
		// The meter checks the module's structure; wazero also validates
		// every function body and the memory limit. Either way the module
		// is at fault.
		return nil, &meter.Error{Msg: "the module does not validate: " + err.Error()}
	}
	if err := r.checkImports(cm); err != nil {
		cm.Close(ctx)
		return nil, err
	}
	m := &Module{SHA256: key, compiled: cm}
	r.compiled[key] = m
	return m, nil
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
			return &meter.Error{Msg: fmt.Sprintf("import %q.%q is not provided by the sandbox", mod, name)}
		}
		if !sameTypes(imp.ParamTypes(), want.ParamTypes()) || !sameTypes(imp.ResultTypes(), want.ResultTypes()) {
			return &meter.Error{Msg: fmt.Sprintf("import %q.%q has type %s, want %s",
				mod, name, signature(imp), signature(want))}
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
