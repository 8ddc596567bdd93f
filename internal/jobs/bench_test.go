package jobs_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/internal/jobs"
)

// BenchmarkQueue is the queue's own throughput: no-op jobs through the
// whole path a match takes, without the match. One op is one job published
// by the server's connection, taken by a worker (Next, one at a time, as
// worker.Pool does), answered with a result and acknowledged, and the
// result taken and acknowledged by the recorder. Workers is the number of
// worker connections pulling at once. Besides ns/op it reports jobs/s and
// the CPU (user+system, of this process, which runs the NATS servers too)
// per job, which does not depend on how busy the machine is.
//
//	go test -run '^$' -bench Queue -benchtime 2000x ./internal/jobs/
//
// Setups: embedded (the server's in-process connection, workers over
// in-process connections too), tcp (workers over loopback TCP with the
// worker's creds, as remote workers), cluster-r3 (three NATS servers with
// routes on loopback, streams replicated three times, every client over
// TCP to its own node).
func BenchmarkQueue(b *testing.B) {
	for _, setup := range []string{"embedded", "tcp", "cluster-r3"} {
		for _, workers := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/workers=%d", setup, workers), func(b *testing.B) {
				server, dial, replicas := benchNATS(b, setup)
				benchQueue(b, server, dial, replicas, workers)
			})
		}
	}
}

// benchNATS starts the setup's NATS and returns the server's connection
// and a way to open a worker's, and the streams' replication.
func benchNATS(b *testing.B, setup string) (*nats.Conn, func() *nats.Conn, int) {
	b.Helper()
	switch setup {
	case "embedded", "tcp":
		l := jobs.Listen{Addr: "127.0.0.1:23310", WorkerPassword: "w", ServerPassword: "s"}
		ns := startExposed(b, l)
		connect := func(user, pw string) *nats.Conn {
			nc, err := jobs.Connect(ns, user, pw)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(nc.Close)
			return nc
		}
		if setup == "embedded" {
			return connect(jobs.ServerUser, "s"), func() *nats.Conn { return connect(jobs.WorkerUser, "w") }, 1
		}
		creds, err := l.WorkerCreds()
		if err != nil {
			b.Fatal(err)
		}
		return connect(jobs.ServerUser, "s"), func() *nats.Conn { return benchDial(b, creds) }, 1
	case "cluster-r3":
		var urls []string
		for i := range 3 {
			urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", 23320+i))
		}
		var routes []string
		for i := range 3 {
			routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", 23330+i))
		}
		dir := b.TempDir()
		var wg sync.WaitGroup
		for i := range 3 {
			ns, err := natsserver.NewServer(&natsserver.Options{
				ServerName: fmt.Sprint("bench-", i), Host: "127.0.0.1", Port: 23320 + i,
				JetStream: true, StoreDir: filepath.Join(dir, fmt.Sprint(i)), MaxPayload: jobs.MaxPayload,
				Users: []*natsserver.User{
					{Username: jobs.ServerUser, Password: "s"},
					{Username: jobs.WorkerUser, Password: "w", Permissions: jobs.WorkerPermissions()},
				},
				Cluster: natsserver.ClusterOpts{Name: "bench", Host: "127.0.0.1", Port: 23330 + i},
				Routes:  natsserver.RoutesFromStr(fmt.Sprint(routes[0], ",", routes[1], ",", routes[2])),
				NoSigs:  true, NoLog: true,
			})
			if err != nil {
				b.Fatal(err)
			}
			wg.Add(1)
			go func() { defer wg.Done(); ns.Start() }()
			b.Cleanup(ns.Shutdown)
		}
		wg.Wait()
		n := 0
		dial := func(user, pw string) *nats.Conn {
			n++
			return benchDial(b, jobs.Creds{URL: urls[n%3], User: user, Password: pw})
		}
		return dial(jobs.ServerUser, "s"), func() *nats.Conn { return dial(jobs.WorkerUser, "w") }, 3
	}
	b.Fatalf("no setup %q", setup)
	return nil, nil, 0
}

func benchDial(b *testing.B, c jobs.Creds) *nats.Conn {
	nc, err := jobs.Dial(c.URL, c, "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	return nc
}

func benchQueue(b *testing.B, snc *nats.Conn, dial func() *nats.Conn, replicas, workers int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var q *jobs.Queue
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; {
		q, err = jobs.Setup(ctx, snc, jobs.Config{AckWait: 30 * time.Second, Replicas: replicas})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond) // a new cluster elects its leaders first
	}
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	for range workers {
		wq, err := jobs.Open(ctx, dial())
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				msg, err := wq.Jobs.Next(jetstream.FetchMaxWait(200 * time.Millisecond))
				if err != nil {
					continue
				}
				md, err := msg.Metadata()
				if err != nil {
					b.Error(err)
					return
				}
				id := int64(md.Sequence.Stream) // a no-op job: its result only names it
				if _, err := wq.PublishResult(ctx, jobs.Result{MatchID: id, Turns: 1}); err != nil {
					msg.Nak()
					continue
				}
				msg.Ack()
			}
		}()
	}
	var recorded atomic.Int64
	done := make(chan struct{})
	go func() { // one result at a time, as the server's recorder takes them
		for ctx.Err() == nil {
			m, err := q.Results.Next(jetstream.FetchMaxWait(200 * time.Millisecond))
			if err != nil {
				continue
			}
			m.Ack()
			if recorded.Add(1) == int64(b.N) {
				close(done)
			}
		}
	}()
	cpu0 := cpuTime()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		if err := q.Publish(ctx, jobs.Job{MatchID: int64(i + 1), Game: "no-op"}); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
		b.Fatalf("%d of %d results after 10 minutes", recorded.Load(), b.N)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/job")
	cancel()
	wg.Wait()
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
