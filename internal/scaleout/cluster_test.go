package scaleout

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/internal/clitest"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
)

// nodeEnv makes the test binary run as a NATS node: "INDEX DIR".
const nodeEnv = "ARENA_TEST_NATS_NODE"

// Loopback ports of the three-node cluster.
const (
	clusterClient = 23260 // +i: client port of node i
	clusterRoute  = 23263 // +i: route port of node i
	clusterHTTP   = 23266
)

const (
	serverPassword = "server-pw-for-the-test"
	workerPassword = "worker-pw-for-the-test"
)

// runNATSNode is a NATS server like the one docs/deploy.md configures:
// JetStream, users arena and worker, routes to the two other nodes.
func runNATSNode() {
	f := strings.Fields(os.Getenv(nodeEnv))
	i, _ := strconv.Atoi(f[0])
	var routes []string
	for j := range 3 {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", clusterRoute+j))
	}
	ns, err := natsserver.NewServer(&natsserver.Options{
		ServerName: fmt.Sprintf("nats-%d", i+1),
		Host:       "127.0.0.1",
		Port:       clusterClient + i,
		JetStream:  true,
		StoreDir:   f[1],
		MaxPayload: jobs.MaxPayload,
		Users: []*natsserver.User{
			{Username: jobs.ServerUser, Password: serverPassword},
			{Username: jobs.WorkerUser, Password: workerPassword, Permissions: jobs.WorkerPermissions()},
		},
		Cluster: natsserver.ClusterOpts{Name: "arena", Host: "127.0.0.1", Port: clusterRoute + i},
		Routes:  natsserver.RoutesFromStr(strings.Join(routes, ",")),
		NoSigs:  true,
		NoLog:   true,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ns.Start()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	ns.Shutdown()
}

// TestNATSClusterNodeKilled: the server and two workers use a three-node
// NATS cluster with streams replicated three times; one node is killed
// with SIGKILL and matches go on, none lost, none counted twice.
func TestNATSClusterNodeKilled(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*clitest.Proc
	var urls []string
	for i := range 3 {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %s", nodeEnv, i, filepath.Join(dir, fmt.Sprint("node", i))))
		nodes = append(nodes, clitest.Start(t, filepath.Join(dir, fmt.Sprintf("node%d.log", i)), fmt.Sprint("nats-", i+1), cmd))
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", clusterClient+i))
	}
	url := strings.Join(urls, ",")
	for _, c := range []jobs.Creds{{URL: url, User: jobs.ServerUser, Password: serverPassword}, {URL: url, User: jobs.WorkerUser, Password: workerPassword}} {
		if err := jobs.WriteCreds(filepath.Join(dir, c.User+".creds"), c); err != nil {
			t.Fatal(err)
		}
	}
	c := &cluster{t: t, dir: dir, base: fmt.Sprintf("http://127.0.0.1:%d", clusterHTTP)}
	c.serveArgs = []string{"serve", "--addr", c.base[len("http://"):], "--data", dir,
		"--nats", url, "--nats-creds", filepath.Join(dir, "arena.creds"), "--nats-replicas", "3", "--no-workers", "--rest", "0", "--ack-wait", ackWait}
	c.logsOnFailure()
	c.server = clitest.Start(t, filepath.Join(dir, "serve.log"), "serve", exec.Command(arenaBin, c.serveArgs...))
	waitFor(t, "server healthy on the cluster", 45*time.Second, func() bool { return healthy(c.base) })
	nc, err := jobs.Dial(url, jobs.Creds{URL: url, User: jobs.ServerUser, Password: serverPassword}, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{jobs.JobStream, jobs.ResultStream} {
		st, err := js.Stream(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if info := st.CachedInfo(); info.Config.Replicas != 3 || info.Cluster == nil || len(info.Cluster.Replicas) != 2 {
			t.Fatalf("stream %s not replicated on three nodes: %+v %+v", name, info.Config, info.Cluster)
		}
	}
	c.startWorker("")
	c.startWorker("")
	s := c.store()
	waitFor(t, "3 matches finished", 40*time.Second, func() bool { return finishedCount(t, s) >= 3 })
	nodes[0].Kill()
	live, err := s.Matches(context.Background(), store.MatchFilter{Live: true, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	n := finishedCount(t, s)
	t.Logf("killed nats-1 with %d matches finished, %d live", n, len(live))
	waitFor(t, "5 more matches after the node died", 40*time.Second, func() bool { return finishedCount(t, s) >= n+5 })
	for _, m := range live {
		waitFor(t, fmt.Sprintf("match %d, live at the kill, finishes", m.ID), 30*time.Second, func() bool { return c.match(s, m.ID).State == store.Finished })
	}
	exactlyOnce(t, s)
	all, err := s.Matches(context.Background(), store.MatchFilter{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.State == store.Failed {
			t.Errorf("match %d failed: %s", m.ID, m.Reason)
		}
	}
}
