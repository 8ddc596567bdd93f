package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// A worker's credentials read no module store: the server serves a module's
// bytes to the holder of a lease whose job names it (Lease.Modules, signed),
// while that lease is its match's current one, a chunk at a time, and
// refuses every other request. So a worker host sees the modules of the
// jobs it is given, not the others' bots.

// ModuleSubject is where workers ask the server for modules.
const ModuleSubject = "arena.module"

// ModuleChunk bounds the bytes of one answer: under the 1 MiB a NATS
// server allows by default, for an external cluster's sake.
const ModuleChunk = 512 << 10

// MaxModule is the largest module served (the upload limit).
const MaxModule = 32 << 20

// ModuleRequest asks for the bytes of a module from Offset on.
type ModuleRequest struct {
	Lease  *Lease `json:"lease"`
	Worker string `json:"worker"`
	SHA256 string `json:"sha256"`
	Offset int64  `json:"offset"`
}

// ModuleReply is the head of an answer: a line of JSON, then the chunk.
type ModuleReply struct {
	Size    int64  `json:"size"` // of the whole module
	Refused string `json:"refused,omitempty"`
}

// ErrModuleRefused is wrapped by FetchModule's error when the server
// refused the request.
var ErrModuleRefused = errors.New("module refused")

// ModuleSource reads a module by sha256 (the server's store).
type ModuleSource func(ctx context.Context, sha string) ([]byte, error)

// Module refusals' reasons, for metrics.
const (
	RefusedLease   = "lease"   // no lease, not this server's, not current
	RefusedModule  = "module"  // a module the lease's job does not name
	RefusedMissing = "missing" // named, but the server cannot read it
	RefusedRequest = "request" // undecodable or out of bounds
)

// holds checks that le is a current lease of this server held by worker
// and that its job names sha; the reason (a RefusedX) and why when not.
func (l *Leases) holds(le *Lease, worker, sha string) (string, error) {
	if !l.signed(le) || le.Worker != worker {
		return RefusedLease, errors.New("not a lease of this server")
	}
	if !slices.Contains(le.Modules, sha) {
		return RefusedModule, fmt.Errorf("match %d's job does not name module %s", le.MatchID, sha)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	st, known := l.state[leaseKey{le.MatchID, le.Check}]
	// Unknown: granted before the server restarted, adopted as a result
	// would be (Accept).
	if known && (st.cur.ID != le.ID || st.ended) {
		return RefusedLease, fmt.Errorf("not the current lease of match %d", le.MatchID)
	}
	return "", nil
}

// ServeModules answers module requests on nc until ctx ends, reading
// modules from src through a cache of cacheBytes (0: 64 MiB); refused, when
// set, is told every refusal.
func (l *Leases) ServeModules(ctx context.Context, nc *nats.Conn, src ModuleSource, cacheBytes int64, refused func(reason string, req ModuleRequest, err error)) error {
	if cacheBytes <= 0 {
		cacheBytes = 64 << 20
	}
	cache := &moduleCache{max: cacheBytes, files: map[string]*moduleEntry{}}
	slots := make(chan struct{}, 8)
	sub, err := nc.Subscribe(ModuleSubject, func(m *nats.Msg) {
		slots <- struct{}{}
		go func() {
			defer func() { <-slots }()
			var req ModuleRequest
			reason, chunk, size, err := RefusedRequest, []byte(nil), int64(0), error(errors.New("undecodable request"))
			if len(m.Data) <= 64<<10 && json.Unmarshal(m.Data, &req) == nil {
				reason, err = l.holds(req.Lease, req.Worker, req.SHA256)
			}
			if err == nil {
				var data []byte
				data, err = cache.get(ctx, req.SHA256, src)
				switch {
				case err != nil || len(data) > MaxModule:
					reason, err = RefusedMissing, fmt.Errorf("module %s: %v (%d bytes)", req.SHA256, err, len(data))
				case req.Offset < 0 || req.Offset > int64(len(data)):
					reason, err = RefusedRequest, fmt.Errorf("offset %d of a module of %d bytes", req.Offset, len(data))
				default:
					size, chunk = int64(len(data)), data[req.Offset:min(int64(len(data)), req.Offset+ModuleChunk)]
				}
			}
			rep := ModuleReply{Size: size}
			if err != nil {
				rep = ModuleReply{Refused: reason + ": " + err.Error()}
				if refused != nil {
					refused(reason, req, err)
				}
			}
			head, _ := json.Marshal(rep)
			out := make([]byte, 0, len(head)+1+len(chunk))
			m.Respond(append(append(append(out, head...), '\n'), chunk...))
		}()
	})
	if err != nil {
		return fmt.Errorf("jobs: module service: %w", err)
	}
	go func() {
		<-ctx.Done()
		sub.Unsubscribe()
	}()
	return nil
}

// FetchModule reads a module from the server with the lease of a job that
// names it.
func FetchModule(ctx context.Context, nc *nats.Conn, le Lease, worker, sha string) ([]byte, error) {
	var out []byte
	size := int64(-1)
	for size < 0 || int64(len(out)) < size {
		data, err := json.Marshal(ModuleRequest{Lease: &le, Worker: worker, SHA256: sha, Offset: int64(len(out))})
		if err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		m, err := nc.RequestWithContext(rctx, ModuleSubject, data)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("jobs: module %s: %w", sha, err)
		}
		head, chunk, ok := bytes.Cut(m.Data, []byte{'\n'})
		var rep ModuleReply
		if !ok || json.Unmarshal(head, &rep) != nil {
			return nil, fmt.Errorf("jobs: module %s: undecodable answer", sha)
		}
		switch {
		case rep.Refused != "":
			return nil, fmt.Errorf("jobs: module %s: %w: %s", sha, ErrModuleRefused, rep.Refused)
		case rep.Size < 0 || rep.Size > MaxModule || (size >= 0 && rep.Size != size):
			return nil, fmt.Errorf("jobs: module %s: the server says %d bytes", sha, rep.Size)
		case len(chunk) == 0 && int64(len(out)) < rep.Size, int64(len(out)+len(chunk)) > rep.Size:
			return nil, fmt.Errorf("jobs: module %s: a chunk of %d bytes at %d of %d", sha, len(chunk), len(out), rep.Size)
		}
		if size < 0 {
			size = rep.Size
			out = make([]byte, 0, size)
		}
		out = append(out, chunk...)
	}
	return out, nil
}

// moduleCache keeps whole modules read from the source, so that the chunks
// of one module cost one read; least recently used out past max bytes.
type moduleCache struct {
	max   int64
	mu    sync.Mutex
	clock uint64
	total int64
	files map[string]*moduleEntry
}

type moduleEntry struct {
	data []byte
	used uint64
}

func (c *moduleCache) get(ctx context.Context, sha string, src ModuleSource) ([]byte, error) {
	c.mu.Lock()
	c.clock++
	if e, ok := c.files[sha]; ok {
		e.used = c.clock
		c.mu.Unlock()
		return e.data, nil
	}
	c.mu.Unlock()
	data, err := src(ctx, sha)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.files[sha]; !ok {
		c.files[sha] = &moduleEntry{data: data, used: c.clock}
		c.total += int64(len(data))
	}
	for c.total > c.max && len(c.files) > 1 {
		oldest := ""
		for s, e := range c.files {
			if s != sha && (oldest == "" || e.used < c.files[oldest].used) {
				oldest = s
			}
		}
		c.total -= int64(len(c.files[oldest].data))
		delete(c.files, oldest)
	}
	return data, nil
}
