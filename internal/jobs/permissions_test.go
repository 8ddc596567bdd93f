package jobs_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/internal/jobs"
)

// violations collects the permission errors the server sends a connection.
type violations struct {
	mu   sync.Mutex
	errs []string
}

func (v *violations) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.errs = append(v.errs, err.Error())
}

func (v *violations) take() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := v.errs
	v.errs = nil
	return out
}

// TestWorkerPermissions: with the worker's creds a connection can do a
// worker's work (take a job, heartbeat and acknowledge it, publish a
// result, an announcement and live turns) and none of the server's: publish
// a job, read results, read, list or put a module in the object store,
// delete or purge a stream, make a consumer on the result stream, or
// listen to replies meant for others. (Modules come from the server
// against a lease: TestModulesOnlyForTheLeaseHolder.)
func TestWorkerPermissions(t *testing.T) {
	l := jobs.Listen{Addr: "127.0.0.1:23300", WorkerPassword: "w0rker", ServerPassword: "s3rver"}
	snc, sq := exposed(t, l, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	module := []byte("\x00asm module bytes")
	if err := sq.PutWasm(ctx, "f00d", module); err != nil {
		t.Fatal(err)
	}
	if err := sq.Publish(ctx, jobs.Job{MatchID: 1, Game: "dots-and-boxes"}); err != nil {
		t.Fatal(err)
	}

	creds, err := l.WorkerCreds()
	if err != nil {
		t.Fatal(err)
	}
	nc, err := jobs.Dial(creds.URL, creds, "test-worker")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var v violations
	nc.SetErrorHandler(v.handler)
	q, err := jobs.Open(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}

	// A worker's work.
	msg, err := q.Jobs.Next(jetstream.FetchMaxWait(10 * time.Second))
	if err != nil {
		t.Fatalf("worker cannot take a job: %v", err)
	}
	if err := msg.InProgress(); err != nil {
		t.Fatal(err)
	}
	if _, err := q.PublishResult(ctx, jobs.Result{MatchID: 1, Turns: 7}); err != nil {
		t.Fatalf("worker cannot publish a result: %v", err)
	}
	if err := msg.DoubleAck(ctx); err != nil {
		t.Fatalf("worker cannot acknowledge a job: %v", err)
	}
	nc.Publish(jobs.AnnounceSubject, []byte(`{}`))
	nc.Publish(jobs.LiveSubject(1), []byte(`{}`))
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if errs := v.take(); len(errs) > 0 {
		t.Fatalf("a worker's own work refused: %q", errs)
	}
	res, err := sq.Results.Next(jetstream.FetchMaxWait(10 * time.Second))
	if err != nil || !strings.Contains(string(res.Data()), `"turns":7`) {
		t.Fatalf("the server did not get the worker's result: %v", err)
	}
	res.Ack()

	// None of the server's. Denied requests get no answer: short waits.
	deny := func(what string, try func(ctx context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := try(ctx); err == nil {
			t.Errorf("worker creds could %s", what)
		}
		nc.Flush()
		if errs := v.take(); len(errs) == 0 || !strings.Contains(strings.ToLower(strings.Join(errs, " ")), "permissions violation") {
			t.Errorf("%s: no permissions violation from the server (%q)", what, errs)
		}
	}
	deny("publish a job", func(ctx context.Context) error { return q.Publish(ctx, jobs.Job{MatchID: 2}) })
	deny("delete the job stream", func(ctx context.Context) error { return q.JS.DeleteStream(ctx, jobs.JobStream) })
	deny("purge the result stream", func(ctx context.Context) error {
		_, err := nc.RequestWithContext(ctx, "$JS.API.STREAM.PURGE."+jobs.ResultStream, nil)
		return err
	})
	deny("make a consumer on the result stream", func(ctx context.Context) error {
		_, err := q.JS.CreateOrUpdateConsumer(ctx, jobs.ResultStream, jetstream.ConsumerConfig{Durable: "spy"})
		return err
	})
	deny("pull results", func(ctx context.Context) error {
		_, err := nc.RequestWithContext(ctx, "$JS.API.CONSUMER.MSG.NEXT."+jobs.ResultStream+"."+jobs.ResultConsumer, []byte(`{"batch":1}`))
		return err
	})
	deny("change the workers' consumer", func(ctx context.Context) error {
		_, err := q.JS.CreateOrUpdateConsumer(ctx, jobs.JobStream, jetstream.ConsumerConfig{Durable: jobs.JobConsumer, AckPolicy: jetstream.AckExplicitPolicy, MaxDeliver: 100})
		return err
	})
	deny("open the object store", func(ctx context.Context) error {
		_, err := q.JS.ObjectStore(ctx, jobs.WasmBucket)
		return err
	})
	// With the bucket's handle made on the server's connection, as a
	// worker could build the same requests by hand.
	obj, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	deny("read a module", func(ctx context.Context) error {
		_, err := nc.RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET.OBJ_"+jobs.WasmBucket, []byte(`{"last_by_subj":"$O.`+jobs.WasmBucket+`.M.>"}`))
		return err
	})
	deny("list the modules", func(ctx context.Context) error {
		_, err := obj.CreateOrUpdateConsumer(ctx, "OBJ_"+jobs.WasmBucket, jetstream.ConsumerConfig{FilterSubject: "$O." + jobs.WasmBucket + ".M.>"})
		return err
	})
	deny("put a module", func(ctx context.Context) error {
		_, err := obj.Publish(ctx, "$O."+jobs.WasmBucket+".C.x", []byte("x"))
		return err
	})
	if got, err := sq.Wasm.GetBytes(ctx, "f00d"); err != nil || !bytes.Equal(got, module) {
		t.Fatalf("the server's own module: %q, %v", got, err)
	}
	for _, subject := range []string{jobs.ResultSubject, "_INBOX.>", ">"} {
		deny("listen on "+subject, func(context.Context) error {
			sub, err := nc.SubscribeSync(subject)
			if err != nil {
				return err
			}
			defer sub.Unsubscribe()
			nc.Flush()
			// What the server's connection sends there must not arrive.
			snc.Publish(strings.Replace(subject, ">", "x", 1), []byte("secret"))
			snc.Flush()
			_, err = sub.NextMsg(500 * time.Millisecond)
			return err
		})
	}

	// The stream took what the server published on the result subject.
	if m, err := sq.Results.Next(jetstream.FetchMaxWait(10 * time.Second)); err != nil || string(m.Data()) != "secret" {
		t.Fatalf("the test's own message on %s: %v", jobs.ResultSubject, err)
	} else if err := m.DoubleAck(ctx); err != nil {
		t.Fatal(err)
	}

	// And nothing changed: the streams are there, no job was added.
	for _, name := range []string{jobs.JobStream, jobs.ResultStream} {
		st, err := sq.JS.Stream(ctx, name)
		if err != nil {
			t.Fatalf("stream %s gone: %v", name, err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs != 0 {
			t.Errorf("stream %s holds %d messages after the denied attempts; want 0", name, info.State.Msgs)
		}
	}
}

// TestDeployDocPermissions: the NATS configuration that docs/deploy.md gives
// for an external cluster grants the worker user exactly WorkerPermissions.
func TestDeployDocPermissions(t *testing.T) {
	doc, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, conf, ok := strings.Cut(string(doc), "```\nserver_name: nats-1\n")
	conf, _, ok2 := strings.Cut(conf, "```")
	if !ok || !ok2 {
		t.Fatal("docs/deploy.md: no NATS configuration block starting with server_name: nats-1")
	}
	// The certificates it names are not here: parse the rest.
	conf = regexp.MustCompile(`(?s)\ntls \{.*?\n\}`).ReplaceAllString(conf, "")
	path := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := natsserver.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("docs/deploy.md's NATS configuration: %v", err)
	}
	for _, u := range opts.Users {
		if u.Username != jobs.WorkerUser {
			continue
		}
		want := jobs.WorkerPermissions()
		if u.Permissions == nil || !reflect.DeepEqual(u.Permissions.Publish, want.Publish) || !reflect.DeepEqual(u.Permissions.Subscribe, want.Subscribe) {
			t.Fatalf("docs/deploy.md gives the worker %+v; jobs.WorkerPermissions is %+v", u.Permissions, want)
		}
		return
	}
	t.Fatal("docs/deploy.md's NATS configuration has no worker user")
}
