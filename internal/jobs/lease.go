package jobs

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// A worker host is trusted with the jobs it holds only. The server signs a
// ticket into every job it publishes (only a worker the queue delivers the
// job to sees it); a worker holding a job asks the server for a lease with
// that ticket (LeaseSubject), renews it with its heartbeats, and a result or
// failure counts only with the current lease of its match (Leases.Accept).
// So a worker's credentials cannot report for a match they were not given,
// for a future or finished match, or over another worker's run.
//
// Which run of a match is current is the server's record, never a worker's
// word: a ticket names its job's generation (Job.Rerun), and while a lease
// of that generation holds, no copy of the job takes the match, whatever
// the queue's delivery count (a worker that once held the job could send
// any count). When a lease lapses (its worker died or stalled) the server
// publishes the job again with the next generation's ticket (Sweep,
// LeaseBackend.Reissue): copies of the older job are stale from then on
// and are dropped. The lease names the modules of its job (from the
// ticket), and those only are served to its holder (modules.go).
//
// The server keeps the current leases in memory only. After it restarts it
// knows none: a validly signed lease is then adopted as current, and since
// the counts of lost runs start again from zero, a restart is never counted
// against a match (only a lease that expires, or is superseded, while the
// server runs is).

// LeaseSubject is where workers ask the server for leases.
const LeaseSubject = "arena.lease"

// LeaseKeyFile, in the server's data directory, holds the key that signs
// tickets and leases: kept across restarts, so that jobs still queued and
// leases held while the server restarted stay valid.
const LeaseKeyFile = "lease.key"

// Lease is a server's grant to one worker of one run of a match.
type Lease struct {
	MatchID int64  `json:"match_id"`
	Check   bool   `json:"check,omitempty"`
	Attempt int    `json:"attempt"` // grants of this match since the server started
	Worker  string `json:"worker"`
	ID      string `json:"id"` // random per grant
	// Expires is when the lease lapses unless renewed (a heartbeat).
	Expires time.Time `json:"expires"`
	// Counted is how many runs of the match so far count toward MaxAttempts
	// (lost runs and platform retries; never a restart).
	Counted int `json:"counted"`
	// Gen is the generation of the job the lease was taken with (Job.Rerun).
	Gen int `json:"gen,omitempty"`
	// Modules are the sha256s of the job's modules (Job.Modules): those the
	// holder may fetch (ModuleSubject).
	Modules []string `json:"modules,omitempty"`
	Sig     string   `json:"sig"`
}

// Lease operations.
const (
	LeaseTake    = "take"
	LeaseRenew   = "renew"
	LeaseRelease = "release"
)

// Reasons for a release: a stopping worker's hand-back does not count
// toward the poison limit, a platform retry does.
const (
	ReleaseStop  = "stop"
	ReleaseRetry = "retry"
)

// LeaseRequest is a worker's message on LeaseSubject.
type LeaseRequest struct {
	Op      string   `json:"op"`
	MatchID int64    `json:"match_id"`
	Check   bool     `json:"check,omitempty"`
	Ticket  string   `json:"ticket,omitempty"`  // take: Job.Ticket
	Gen     int      `json:"gen,omitempty"`     // take: Job.Rerun
	Modules []string `json:"modules,omitempty"` // take: Job.Modules
	Worker  string   `json:"worker"`
	Lease   *Lease   `json:"lease,omitempty"`  // renew, release
	Reason  string   `json:"reason,omitempty"` // release
}

// LeaseReply is the server's answer: a lease, or why not. Drop says the job
// is over (its match finished, failed or unknown): the worker removes it.
type LeaseReply struct {
	Lease   *Lease `json:"lease,omitempty"`
	Refused string `json:"refused,omitempty"`
	Drop    bool   `json:"drop,omitempty"`
	// OutOfRotation says the worker is refused every lease for now
	// (Leases.OutOfRotation): it leaves the queue to the others a while.
	OutOfRotation bool `json:"out_of_rotation,omitempty"`
}

// LeaseBackend is what the lease service asks the server.
type LeaseBackend interface {
	// Live reports whether the match is still to be run (queued or
	// running; for a check, finished).
	Live(ctx context.Context, matchID int64, check bool) (bool, error)
	// Poison ends a match whose runs were lost MaxAttempts times.
	Poison(ctx context.Context, matchID int64, check bool, reason string)
	// Reissue publishes the match's job again as generation gen, signed
	// with Ticket(matchID, check, gen, modules), after its lease lapsed.
	Reissue(ctx context.Context, matchID int64, check bool, gen int)
}

// ErrLease is wrapped by every refusal of Leases.Accept.
var ErrLease = errors.New("lease")

type leaseKey struct {
	match int64
	check bool
}

type leaseState struct {
	cur      Lease // ID "" when nobody holds the match
	gen      int   // the job generation the server issued last
	counted  int
	grants   int
	lost     map[string]bool // ids of leases counted as lost
	poisoned bool
	ended    bool // cur reported the match (End)
	touched  time.Time
}

// Leases issues and checks leases (the server's side).
type Leases struct {
	key     []byte
	ttl     time.Duration
	backend LeaseBackend
	now     func() time.Time

	mu    sync.Mutex
	state map[leaseKey]*leaseState

	// OutOfRotation, when set, says why a worker is refused new leases
	// ("" when it is not): a worker whose runs lost the majority vote of
	// determinism checks too often waits for an operator.
	OutOfRotation func(worker string) string
}

// NewLeases makes the lease service with a signing key. ackWait is the
// queue's: a lease lapses three of them after its last renewal, so that a
// server slow to answer renewals does not count a live worker's run as
// lost (a worker that dies loses its lease sooner anyway: the queue hands
// the job out again after one ack wait, and the new take supersedes it).
func NewLeases(key []byte, ackWait time.Duration, backend LeaseBackend) *Leases {
	return &Leases{key: key, ttl: 3 * ackWait, backend: backend, now: time.Now, state: map[leaseKey]*leaseState{}}
}

// LeaseKeyFor reads the signing key kept in dir, making it on first use.
func LeaseKeyFor(dir string) ([]byte, error) {
	path := filepath.Join(dir, LeaseKeyFile)
	if data, err := os.ReadFile(path); err == nil {
		if key, err := hex.DecodeString(strings.TrimSpace(string(data))); err == nil && len(key) == 32 {
			return key, nil
		}
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("jobs: lease key: %w", err)
	}
	return key, nil
}

func (l *Leases) mac(parts ...string) string {
	h := hmac.New(sha256.New, l.key)
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Ticket is what the server signs into a job (Job.Ticket): its match, its
// generation (Job.Rerun) and its modules (Job.Modules).
func (l *Leases) Ticket(matchID int64, check bool, gen int, modules []string) string {
	return l.mac("ticket", strconv.FormatInt(matchID, 10), strconv.FormatBool(check), strconv.Itoa(gen), strings.Join(modules, ","))
}

// Sign sets a job's ticket.
func (l *Leases) Sign(j *Job) {
	j.Ticket = l.Ticket(j.MatchID, j.Check, j.Rerun, j.Modules())
}

func (l *Leases) sign(le Lease) string {
	return l.mac("lease", strconv.FormatInt(le.MatchID, 10), strconv.FormatBool(le.Check), strconv.Itoa(le.Attempt), le.Worker, le.ID,
		strconv.Itoa(le.Gen), strings.Join(le.Modules, ","))
}

func (l *Leases) signed(le *Lease) bool {
	return le != nil && hmac.Equal([]byte(le.Sig), []byte(l.sign(*le)))
}

func (l *Leases) get(k leaseKey) *leaseState {
	st := l.state[k]
	if st == nil {
		st = &leaseState{lost: map[string]bool{}}
		l.state[k] = st
	}
	st.touched = l.now()
	return st
}

// lose counts the current lease of st as a lost run (it lapsed or a newer
// delivery superseded it) and reports whether the match is now poison.
func (l *Leases) lose(st *leaseState) bool {
	if st.cur.ID != "" && !st.lost[st.cur.ID] {
		st.lost[st.cur.ID] = true
		st.counted++
	}
	st.cur = Lease{}
	if st.counted >= MaxAttempts && !st.poisoned {
		st.poisoned = true
		return true
	}
	return false
}

// poisonReason is the failure of a match whose runs were lost MaxAttempts times.
func poisonReason(n int) string {
	return fmt.Sprintf("handed out %d times without a result: the match stalls or crashes its worker", n)
}

// Handle answers one request.
func (l *Leases) Handle(ctx context.Context, req LeaseRequest) LeaseReply {
	switch req.Op {
	case LeaseTake:
		return l.take(ctx, req)
	case LeaseRenew:
		return l.renew(ctx, req)
	case LeaseRelease:
		return l.release(req)
	}
	return LeaseReply{Refused: "unknown operation"}
}

func (l *Leases) take(ctx context.Context, req LeaseRequest) LeaseReply {
	if req.Worker == "" || len(req.Worker) > 64 || req.Gen < 0 || len(req.Modules) > 64 ||
		!hmac.Equal([]byte(req.Ticket), []byte(l.Ticket(req.MatchID, req.Check, req.Gen, req.Modules))) {
		return LeaseReply{Refused: "no valid ticket for this match"}
	}
	if l.OutOfRotation != nil {
		if why := l.OutOfRotation(req.Worker); why != "" {
			return LeaseReply{Refused: why, OutOfRotation: true}
		}
	}
	live, err := l.backend.Live(ctx, req.MatchID, req.Check)
	if err != nil {
		return LeaseReply{Refused: "cannot tell now: " + err.Error()}
	}
	if !live {
		return LeaseReply{Refused: "the match is not to be run", Drop: true}
	}
	k := leaseKey{req.MatchID, req.Check}
	l.mu.Lock()
	st := l.get(k)
	now := l.now()
	if st.poisoned || st.ended {
		l.mu.Unlock()
		return LeaseReply{Refused: "the match is over", Drop: true}
	}
	if req.Gen < st.gen {
		l.mu.Unlock()
		return LeaseReply{Refused: fmt.Sprintf("a stale copy of the job (generation %d; the server issued %d)", req.Gen, st.gen), Drop: true}
	}
	if st.cur.ID != "" && st.cur.Worker != req.Worker && req.Gen == st.gen {
		// Another worker holds it, by the server's record: another copy of
		// the same job does not take it over. If its holder stopped, its
		// lease lapses and the job is issued again (Sweep).
		l.mu.Unlock()
		return LeaseReply{Refused: "held by another worker"}
	}
	// A newer generation than the holder's (issued by this server before
	// it restarted, the holder's adopted since) supersedes it; so does the
	// holder's own new take.
	st.gen = req.Gen
	st.grants++
	id := make([]byte, 16)
	rand.Read(id)
	le := Lease{MatchID: req.MatchID, Check: req.Check, Attempt: st.grants, Worker: req.Worker, ID: hex.EncodeToString(id),
		Expires: now.Add(l.ttl), Counted: st.counted, Gen: req.Gen, Modules: req.Modules}
	le.Sig = l.sign(le)
	st.cur = le
	l.mu.Unlock()
	return LeaseReply{Lease: &le}
}

func (l *Leases) renew(ctx context.Context, req LeaseRequest) LeaseReply {
	le := req.Lease
	if !l.signed(le) || le.Worker != req.Worker {
		return LeaseReply{Refused: "not a lease of this server"}
	}
	k := leaseKey{le.MatchID, le.Check}
	l.mu.Lock()
	st, known := l.state[k]
	if known && st.ended {
		l.mu.Unlock()
		return LeaseReply{Refused: "the match is over", Drop: true}
	}
	if known && st.cur.ID == "" && st.lost[le.ID] && !st.poisoned {
		// It lapsed, but nobody took the match since and its worker is
		// alive (the server was slow to answer, or the worker cut off):
		// it is its worker's again, and not a lost run.
		delete(st.lost, le.ID)
		st.counted--
		st.cur = *le
	}
	if known && st.cur.ID != le.ID && le.Gen > st.gen {
		// Of a newer job than the one a take brought after a restart.
		st.gen, st.cur = le.Gen, *le
	}
	if known && st.cur.ID != le.ID {
		l.mu.Unlock()
		return LeaseReply{Refused: "the lease was lost: the match went to another worker", Drop: true}
	}
	if !known {
		// The server restarted since it granted it: adopt it.
		l.mu.Unlock()
		live, err := l.backend.Live(ctx, le.MatchID, le.Check)
		if err != nil {
			return LeaseReply{Refused: "cannot tell now: " + err.Error()}
		}
		if !live {
			return LeaseReply{Refused: "the match is not to be run", Drop: true}
		}
		l.mu.Lock()
		st = l.get(k)
		if st.cur.ID != "" && st.cur.ID != le.ID && le.Gen <= st.gen {
			l.mu.Unlock()
			return LeaseReply{Refused: "the lease was lost: the match went to another worker", Drop: true}
		}
		st.cur, st.gen = *le, max(st.gen, le.Gen)
	}
	st.touched = l.now()
	st.cur.Expires = l.now().Add(l.ttl)
	st.cur.Counted = st.counted
	out := st.cur
	l.mu.Unlock()
	return LeaseReply{Lease: &out}
}

func (l *Leases) release(req LeaseRequest) LeaseReply {
	le := req.Lease
	if !l.signed(le) || le.Worker != req.Worker {
		return LeaseReply{Refused: "not a lease of this server"}
	}
	k := leaseKey{le.MatchID, le.Check}
	l.mu.Lock()
	defer l.mu.Unlock()
	st, known := l.state[k]
	if known && st.cur.ID != le.ID {
		return LeaseReply{Refused: "not the current lease"}
	}
	st = l.get(k)
	if req.Reason == ReleaseRetry {
		st.counted++
	}
	st.cur = Lease{}
	return LeaseReply{}
}

// Reopen makes a match's ended run to be run once more (a determinism
// check's third run) and returns the generation its job is to carry: the
// leases and jobs of the earlier runs are over.
func (l *Leases) Reopen(matchID int64, check bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.get(leaseKey{matchID, check})
	st.ended, st.poisoned, st.counted, st.cur = false, false, 0, Lease{}
	st.gen++
	return st.gen
}

// Gen is the generation of the match's job the server issued last: what
// a job published again without a lapse (a failed publish retried) carries.
func (l *Leases) Gen(matchID int64, check bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st, ok := l.state[leaseKey{matchID, check}]; ok {
		return st.gen
	}
	return 0
}

// Accept checks that a result or failure comes with the current lease of
// its match. The error (wrapping ErrLease) says why not; a refused result
// must change nothing. Once the result is recorded, End says so.
func (l *Leases) Accept(le *Lease, matchID int64, check bool) error {
	if le == nil {
		return fmt.Errorf("%w: the result carries no lease", ErrLease)
	}
	if !l.signed(le) {
		return fmt.Errorf("%w: the result's lease is not one this server signed", ErrLease)
	}
	if le.MatchID != matchID || le.Check != check {
		return fmt.Errorf("%w: the lease is for another match", ErrLease)
	}
	k := leaseKey{le.MatchID, le.Check}
	l.mu.Lock()
	defer l.mu.Unlock()
	st, known := l.state[k]
	if !known {
		// Granted before the server restarted, or never seen since: the
		// signature is the server's, so it was granted to a holder of the job.
		return nil
	}
	if st.ended && st.cur.ID != le.ID {
		return fmt.Errorf("%w: the match is over (reported under attempt %d of worker %s)", ErrLease, st.cur.Attempt, st.cur.Worker)
	}
	if st.cur.ID != le.ID {
		if st.lost[le.ID] {
			// Its worker was alive after all (cut off, not dead): the run
			// is not held against the match.
			delete(st.lost, le.ID)
			st.counted--
		}
		return fmt.Errorf("%w: not the match's current lease (attempt %d of worker %s; current: %q)", ErrLease, le.Attempt, le.Worker, st.cur.Worker)
	}
	return nil
}

// AcceptLive checks that a batch of live turns of match matchID comes with
// its current lease: a worker shows the turns of the matches it holds, not
// another's (or a made-up game on a queued match, which the first turn
// would mark running). The lease that reported the match stays current
// (End), so the last batch, which may reach the server after the result,
// is taken. Determinism checks send no live turns.
func (l *Leases) AcceptLive(le *Lease, matchID int64) error {
	if !l.signed(le) {
		return fmt.Errorf("%w: not a lease this server signed", ErrLease)
	}
	if le.MatchID != matchID || le.Check {
		return fmt.Errorf("%w: the lease is for another match", ErrLease)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// Unknown: granted before the server restarted, adopted as a result
	// would be (Accept).
	if st, known := l.state[leaseKey{le.MatchID, false}]; known && st.cur.ID != le.ID {
		return fmt.Errorf("%w: not the match's current lease (attempt %d of worker %s)", ErrLease, le.Attempt, le.Worker)
	}
	return nil
}

// End notes that the match was reported under le: from now on any other
// lease's result is refused as over.
func (l *Leases) End(le *Lease) {
	if le == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.get(leaseKey{le.MatchID, le.Check})
	st.cur, st.ended = *le, true
}

// Fault counts a run whose result the server refused as a lost one (the
// holder of the current lease sent a replay that does not check out) and
// reports whether the match is now poison; the caller publishes it again
// otherwise, as generation gen.
func (l *Leases) Fault(matchID int64, check bool) (poison bool, counted, gen int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.get(leaseKey{matchID, check})
	st.counted++
	st.cur = Lease{}
	if st.counted >= MaxAttempts {
		st.poisoned = true
		return true, st.counted, st.gen
	}
	st.gen++
	return false, st.counted, st.gen
}

// Sweep counts the leases that lapsed as lost runs, ends the matches that
// are poison now, issues the others' jobs again with the next generation's
// ticket, and forgets idle entries.
func (l *Leases) Sweep(ctx context.Context) {
	type end struct {
		k      leaseKey
		n, gen int
		poison bool
	}
	var ends []end
	l.mu.Lock()
	now := l.now()
	for k, st := range l.state {
		if !st.ended && st.cur.ID != "" && now.After(st.cur.Expires) {
			if l.lose(st) {
				ends = append(ends, end{k: k, n: st.counted, poison: true})
			} else if !st.poisoned {
				st.gen++
				ends = append(ends, end{k: k, gen: st.gen})
			}
		}
		if (st.cur.ID == "" || st.ended) && now.Sub(st.touched) > time.Hour {
			delete(l.state, k)
		}
	}
	l.mu.Unlock()
	for _, e := range ends {
		if e.poison {
			l.backend.Poison(ctx, e.k.match, e.k.check, poisonReason(e.n))
		} else {
			l.backend.Reissue(ctx, e.k.match, e.k.check, e.gen)
		}
	}
}

// Serve answers lease requests on nc and sweeps every second until ctx
// ends.
func (l *Leases) Serve(ctx context.Context, nc *nats.Conn) error {
	// Requests are answered side by side (a take reads the store), a
	// bounded number at a time.
	slots := make(chan struct{}, 16)
	sub, err := nc.Subscribe(LeaseSubject, func(m *nats.Msg) {
		slots <- struct{}{}
		go func() {
			defer func() { <-slots }()
			var req LeaseRequest
			rep := LeaseReply{Refused: "undecodable request"}
			if len(m.Data) <= 64<<10 && json.Unmarshal(m.Data, &req) == nil {
				rep = l.Handle(ctx, req)
			}
			if data, err := json.Marshal(rep); err == nil {
				m.Respond(data)
			}
		}()
	})
	if err != nil {
		return fmt.Errorf("jobs: lease service: %w", err)
	}
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				sub.Unsubscribe()
				return
			case <-t.C:
				l.Sweep(ctx)
			}
		}
	}()
	return nil
}

// RequestLease sends a request and waits for the server's answer.
func RequestLease(ctx context.Context, nc *nats.Conn, req LeaseRequest) (LeaseReply, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return LeaseReply{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m, err := nc.RequestWithContext(ctx, LeaseSubject, data)
	if err != nil {
		return LeaseReply{}, fmt.Errorf("jobs: lease of match %d: %w", req.MatchID, err)
	}
	var rep LeaseReply
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		return LeaseReply{}, fmt.Errorf("jobs: lease of match %d: %w", req.MatchID, err)
	}
	return rep, nil
}
