// Package jobs carries match work over NATS JetStream: a work-queue stream of
// match jobs, a work-queue stream of results, an object store of bot modules
// keyed by sha256, and plain subjects for the live turns of running matches.
// It defines the messages, so that the server (which schedules and records)
// and the workers (which only run matches) agree without sharing anything
// but a NATS connection.
//
// By default the NATS server is embedded in the arena process and opens no
// port (StartServer); workers on other machines would connect to a NATS
// server of their own instead, with the same streams.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of the streams, consumers, subjects and bucket.
const (
	JobStream      = "MATCH_JOBS"
	JobSubject     = "arena.jobs"
	JobConsumer    = "workers"
	ResultStream   = "MATCH_RESULTS"
	ResultSubject  = "arena.results"
	ResultConsumer = "recorder"
	WasmBucket     = "wasm"
	livePrefix     = "arena.live."
)

// MaxPayload bounds one NATS message: a long match's replay and logs travel
// in one result.
const MaxPayload = 32 << 20

// MaxMemoryQueue bounds the bytes of each stream kept in memory
// (Config.Memory): eight results of the largest size.
const MaxMemoryQueue = 8 * MaxPayload

// MaxAttempts is how many times a job is handed out before it is a poison
// job: ended as a failed match, never tried again.
const MaxAttempts = 3

// Job is one match to run.
type Job struct {
	MatchID int64             `json:"match_id"`
	Game    string            `json:"game"`
	Params  map[string]string `json:"params,omitempty"`
	Seed    uint64            `json:"seed"`
	Seats   []Seat            `json:"seats"`
	// Build is what a worker must match to run the job identically to
	// every other worker (Stamp, Build.Check); empty from old servers.
	Build *Build `json:"build,omitempty"`
	// Check marks a second run of a finished match, to compare its replay
	// with the recorded one; a worker other than NotWorker should take it.
	Check     bool   `json:"check,omitempty"`
	NotWorker string `json:"not_worker,omitempty"`
	// Avoid lists workers that must leave a check to others, however long
	// it waits: a third run goes to neither of the two that disagreed.
	Avoid []string `json:"avoid,omitempty"`
	// Ticket is the server's signature of the job (Leases.Ticket): a
	// worker that holds the job shows it to be given a lease.
	Ticket string `json:"ticket,omitempty"`
	// Rerun numbers a job published again after its run's result was
	// refused, so that the queue does not take it for a duplicate.
	Rerun int `json:"rerun,omitempty"`
}

// Modules are the sha256s of the job's uploaded modules, in seat order:
// what its ticket and lease let a worker fetch (ModuleSubject).
func (j Job) Modules() []string {
	var out []string
	for _, s := range j.Seats {
		if s.Wasm != "" {
			out = append(out, s.Wasm)
		}
	}
	return out
}

// Seat names the bot of one seat: a house bot by its spec, or an uploaded
// module by its sha256 (fetched from the object store).
type Seat struct {
	Builtin string `json:"builtin,omitempty"` // "builtin:NAME"
	Wasm    string `json:"wasm,omitempty"`    // hex sha256
}

// Result is a job's outcome: a finished match, or the reason it could not be
// run (Error), which ends it as a failed match.
type Result struct {
	MatchID int64        `json:"match_id"`
	Error   string       `json:"error,omitempty"`
	Turns   int64        `json:"turns,omitempty"`
	Replay  []byte       `json:"replay,omitempty"`
	Seats   []SeatResult `json:"seats,omitempty"`
	Elapsed float64      `json:"elapsed,omitempty"` // seconds, for metrics
	Worker  string       `json:"worker,omitempty"`  // id of the worker process
	Check   bool         `json:"check,omitempty"`   // the result of a Check job
	// Original is the worker of the recorded run (Job.NotWorker) in the
	// result of a Check job.
	Original string `json:"original,omitempty"`
	// Lease is the worker's lease of the run: without the match's current
	// one, the server refuses the result (Leases.Accept).
	Lease *Lease `json:"lease,omitempty"`
}

// SeatResult is one seat's outcome.
type SeatResult struct {
	Score    int64          `json:"score"`
	Place    int            `json:"place"`
	Statuses map[string]int `json:"statuses"`
	Fuel     int64          `json:"fuel"`
	Answers  int64          `json:"answers"`
	Stderr   []byte         `json:"stderr,omitempty"`
}

// Turn is one turn of a running match, published for live views.
type Turn struct {
	MatchID int64           `json:"match_id"`
	Turn    json.RawMessage `json:"turn"`
}

// LiveSubject is where the turns of a running match are published.
func LiveSubject(matchID int64) string { return livePrefix + strconv.FormatInt(matchID, 10) }

// StartServer starts an embedded NATS server with JetStream, its data under
// dir, listening on no port unless an option (Listen.Apply) opens one.
// Clients reach it with Connect.
func StartServer(dir string, opts ...func(*natsserver.Options) error) (*natsserver.Server, error) {
	o := &natsserver.Options{
		ServerName: "arena",
		DontListen: true,
		JetStream:  true,
		StoreDir:   filepath.Join(dir, "jetstream"),
		MaxPayload: MaxPayload,
		NoSigs:     true,
		NoLog:      true,
	}
	for _, f := range opts {
		if err := f(o); err != nil {
			return nil, err
		}
	}
	ns, err := natsserver.NewServer(o)
	if err != nil {
		return nil, fmt.Errorf("jobs: NATS server: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("jobs: NATS server did not start within 10 s")
	}
	return ns, nil
}

// Connect opens an in-process connection to an embedded server, with a
// user and password when the server has users (Listen).
func Connect(ns *natsserver.Server, userPassword ...string) (*nats.Conn, error) {
	opts := []nats.Option{nats.InProcessServer(ns), nats.Name("arena")}
	if len(userPassword) == 2 {
		opts = append(opts, login(userPassword[0], userPassword[1])...)
	}
	nc, err := nats.Connect("", opts...)
	if err != nil {
		return nil, fmt.Errorf("jobs: connect: %w", err)
	}
	return nc, nil
}

// Config tunes the job consumer.
type Config struct {
	// AckWait is how long a job may go without a heartbeat before it is
	// handed to another worker. Workers heartbeat every AckWait/3.
	AckWait time.Duration
	// Replicas is the streams' replication in a NATS cluster (0: 1).
	Replicas int
	// Memory keeps the job and result streams in memory rather than in
	// files. For an embedded NATS server only, which lives and dies with
	// the server process: the database is the durable record (a result
	// is acknowledged once recorded there), and the server publishes
	// every match it has not recorded again when it starts. File streams
	// cost a block file created and deleted whenever a queue runs dry,
	// which with workers that keep up is at nearly every acknowledgement.
	Memory bool
}

// DefaultAckWait leaves room for three missed heartbeats.
const DefaultAckWait = 30 * time.Second

// Queue is the JetStream side of the work: streams, consumers and bucket.
type Queue struct {
	JS      jetstream.JetStream
	Jobs    jetstream.Consumer
	Results jetstream.Consumer
	Wasm    jetstream.ObjectStore
	AckWait time.Duration

	unsure sync.Map // sha256 -> true: modules whose last put failed (PutWasm)
}

// Setup creates (or updates) the streams, consumers and bucket.
func Setup(ctx context.Context, nc *nats.Conn, cfg Config) (*Queue, error) {
	if cfg.AckWait <= 0 {
		cfg.AckWait = DefaultAckWait
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	q := &Queue{JS: js, AckWait: cfg.AckWait}
	storage, maxBytes, discard := jetstream.FileStorage, int64(-1), jetstream.DiscardOld
	if cfg.Memory {
		// Bounded in memory as the disk bounds files: results waiting
		// for a recorder that stalls stop at this (a new message is
		// refused, none is dropped), and a worker hands its job back
		// until there is room.
		storage, maxBytes, discard = jetstream.MemoryStorage, MaxMemoryQueue, jetstream.DiscardNew
	}
	for _, sc := range []jetstream.StreamConfig{
		{Name: JobStream, Subjects: []string{JobSubject}, Retention: jetstream.WorkQueuePolicy, Storage: storage, MaxBytes: maxBytes, Discard: discard, Duplicates: 10 * time.Minute, Replicas: cfg.Replicas},
		{Name: ResultStream, Subjects: []string{ResultSubject}, Retention: jetstream.WorkQueuePolicy, Storage: storage, MaxBytes: maxBytes, Discard: discard, Duplicates: 10 * time.Minute, Replicas: cfg.Replicas},
	} {
		if err := ensureStream(ctx, js, sc); err != nil {
			return nil, fmt.Errorf("jobs: stream %s: %w", sc.Name, err)
		}
	}
	q.Jobs, err = js.CreateOrUpdateConsumer(ctx, JobStream, jetstream.ConsumerConfig{
		Durable:   JobConsumer,
		AckPolicy: jetstream.AckExplicitPolicy,
		AckWait:   cfg.AckWait,
		// No bound on deliveries: a job goes back to the queue whenever a
		// worker or the server stops, which is not the match's fault; the
		// server counts the runs that are (Leases) and ends the match.
		MaxDeliver:    -1,
		MaxAckPending: 1000,
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: consumer: %w", err)
	}
	q.Results, err = js.CreateOrUpdateConsumer(ctx, ResultStream, jetstream.ConsumerConfig{
		Durable:   ResultConsumer,
		AckPolicy: jetstream.AckExplicitPolicy,
		AckWait:   30 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: results consumer: %w", err)
	}
	q.Wasm, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: WasmBucket, Storage: jetstream.FileStorage, Replicas: cfg.Replicas})
	if err != nil {
		return nil, fmt.Errorf("jobs: object store: %w", err)
	}
	return q, nil
}

// ensureStream creates or updates a stream. A stream's storage cannot be
// changed in place: one stored otherwise (a data directory of an earlier
// version) is deleted and made again, which loses nothing the server does
// not publish again at its start (requeue) and only happens then.
func ensureStream(ctx context.Context, js jetstream.JetStream, sc jetstream.StreamConfig) error {
	if st, err := js.Stream(ctx, sc.Name); err == nil {
		if info, err := st.Info(ctx); err == nil && info.Config.Storage != sc.Storage {
			if err := js.DeleteStream(ctx, sc.Name); err != nil {
				return fmt.Errorf("change its storage: %w", err)
			}
		}
	}
	_, err := js.CreateOrUpdateStream(ctx, sc)
	return err
}

// Publish queues a job. The message id is the match id, so publishing the
// same match again within the stream's duplicate window adds nothing.
func (q *Queue) Publish(ctx context.Context, j Job) error {
	kind := "match"
	if j.Rerun > 0 {
		kind = "rerun" + strconv.Itoa(j.Rerun) + "-match"
	}
	if _, err := q.publish(ctx, JobSubject, kind, j.MatchID, j.Check, j); err != nil {
		return fmt.Errorf("jobs: publish match %d: %w", j.MatchID, err)
	}
	return nil
}

// PublishResult sends a job's outcome, deduplicated by its lease: it
// reports duplicate when the stream already had this result (a copy sent
// again after a lost answer). Not by match id: anyone with a worker's
// credentials could then take a match's id before its real result.
func (q *Queue) PublishResult(ctx context.Context, r Result) (duplicate bool, err error) {
	data, err := EncodeResult(r)
	if err != nil {
		return false, fmt.Errorf("jobs: result of match %d: %w", r.MatchID, err)
	}
	kind := "result"
	if r.Lease != nil {
		kind = "result-" + r.Lease.ID
	}
	dup, err := q.publish(ctx, ResultSubject, kind, r.MatchID, r.Check, data)
	if err != nil {
		return false, fmt.Errorf("jobs: publish result of match %d: %w", r.MatchID, err)
	}
	return dup, nil
}

// publish sends v (as JSON unless it is encoded already) with the message id KIND-MATCH ("check-" before
// it for a determinism check's second run, which is a message of its own),
// and reports whether the stream had that id already.
func (q *Queue) publish(ctx context.Context, subject, kind string, matchID int64, check bool, v any) (duplicate bool, err error) {
	data, ok := v.([]byte)
	if !ok {
		var err error
		if data, err = json.Marshal(v); err != nil {
			return false, err
		}
	}
	id := kind + "-" + strconv.FormatInt(matchID, 10)
	if check {
		id = "check-" + id
	}
	ack, err := q.JS.Publish(ctx, subject, data, jetstream.WithMsgID(id))
	if err != nil {
		return false, err
	}
	return ack.Duplicate, nil
}

// HasWasm reports whether the object store holds a module whole, as far
// as one can tell without reading it: its entry is there and no put of it
// in this process failed since the last that succeeded. An error is not an
// answer: the store could not be asked (a NATS node going down).
func (q *Queue) HasWasm(ctx context.Context, sha string) (bool, error) {
	if _, unsure := q.unsure.Load(sha); unsure {
		return false, nil
	}
	_, err := q.Wasm.GetInfo(ctx, sha)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return false, nil
	default:
		return false, fmt.Errorf("jobs: look up module %s: %w", sha, err)
	}
}

// PutWasm stores a module under its sha256 (a no-op when it is there). It
// writes only when the store says the module is not there: writing over a
// whole module while the connection fails (a NATS node going down) once
// left an entry whose chunks were not all there, and every fetch found it
// corrupt. After a failed put, the next one writes it again whole.
func (q *Queue) PutWasm(ctx context.Context, sha string, wasm []byte) error {
	has, err := q.HasWasm(ctx, sha)
	if err != nil || has {
		return err
	}
	if _, err := q.Wasm.PutBytes(ctx, sha, wasm); err != nil {
		q.unsure.Store(sha, true)
		return fmt.Errorf("jobs: store module %s: %w", sha, err)
	}
	q.unsure.Delete(sha)
	return nil
}

// DeleteWasm removes a module from the object store; one not there is no
// error.
func (q *Queue) DeleteWasm(ctx context.Context, sha string) error {
	if err := q.Wasm.Delete(ctx, sha); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return fmt.Errorf("jobs: delete module %s: %w", sha, err)
	}
	return nil
}

// Pending reports how many jobs wait in the stream, not yet handed out.
func (q *Queue) Pending(ctx context.Context) (uint64, error) {
	info, err := q.Jobs.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.NumPending, nil
}

// Build names what makes a match come out the same on every worker: the
// sandbox's cost model (fuel), the game's rules and the processor's
// architecture, since wasm leaves the bits of a NaN to the processor (0/0
// is a negative NaN on amd64, a positive one on arm64) and a bot may print
// them. A worker whose build differs refuses the job rather than record a
// different match.
type Build struct {
	CostModel int    `json:"cost_model"`
	Rules     string `json:"rules"`          // a fingerprint of the game's rules
	Arch      string `json:"arch,omitempty"` // GOARCH; empty in jobs of servers before it was added
}
