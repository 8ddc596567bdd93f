package scaleout

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/clitest"
	"github.com/arenabots/arena/internal/store"
)

// netns is a network namespace joined to this one by a veth pair: a worker
// started in it reaches the server only over the pair, as over a network
// between two machines, and the test can cut that network.
type netns struct {
	t      *testing.T
	name   string
	hostIf string // the pair's end here, with hostIP
	nsIf   string // its end in the namespace, with nsIP
	hostIP string
	nsIP   string
}

// newNetns makes the namespace and the pair (ip, from iproute2, which
// scripts/install-toolchains.sh installs), and removes them when the test
// ends. It needs root (CAP_NET_ADMIN): without it the test fails, saying so.
func newNetns(t *testing.T) *netns {
	t.Helper()
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("no ip command (Debian package iproute2, installed by scripts/install-toolchains.sh): the partition tests need it")
	}
	// Names and addresses unique to this process; interface names have at
	// most 15 bytes.
	pid := os.Getpid()
	n := &netns{t: t, name: fmt.Sprintf("arena-test-%d", pid), hostIf: fmt.Sprintf("arh%d", pid), nsIf: fmt.Sprintf("arn%d", pid),
		hostIP: fmt.Sprintf("10.213.%d.1", pid%250), nsIP: fmt.Sprintf("10.213.%d.2", pid%250)}
	if out, err := exec.Command("ip", "netns", "add", n.name).CombinedOutput(); err != nil {
		t.Fatalf("cannot create a network namespace (ip netns add: %v: %s): the partition tests need root or CAP_NET_ADMIN and CAP_SYS_ADMIN", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		// Deleting the namespace deletes its end of the pair, and so the pair.
		exec.Command("ip", "netns", "del", n.name).Run()
		exec.Command("ip", "link", "del", n.hostIf).Run()
	})
	n.ip("link", "add", n.hostIf, "type", "veth", "peer", "name", n.nsIf)
	n.ip("link", "set", n.nsIf, "netns", n.name)
	n.ip("addr", "add", n.hostIP+"/30", "dev", n.hostIf)
	n.ip("link", "set", n.hostIf, "up")
	n.ip("-n", n.name, "addr", "add", n.nsIP+"/30", "dev", n.nsIf)
	n.ip("-n", n.name, "link", "set", n.nsIf, "up")
	n.ip("-n", n.name, "link", "set", "lo", "up")
	return n
}

func (n *netns) ip(args ...string) {
	n.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		n.t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
}

// cut takes the namespace's end of the pair down: nothing passes either way
// (the worker's TCP connection stays open, as in a real partition, and
// carries on when the link comes back).
func (n *netns) cut() { n.ip("-n", n.name, "link", "set", n.nsIf, "down") }

// heal brings the link back.
func (n *netns) heal() { n.ip("-n", n.name, "link", "set", n.nsIf, "up") }

// command runs the arena binary inside the namespace.
func (n *netns) command(args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", n.name, arenaBin}, args...)...)
}

// TestPartitionedWorker: a worker in its own network namespace reaches the
// server's NATS over a veth pair; the link is cut while it runs a match.
// The match is handed to the worker on the server's side of the link after
// the ack wait and recorded once; when the link comes back, the cut-off
// worker's late result of the same match is dropped as a duplicate and
// changes nothing.
func TestPartitionedWorker(t *testing.T) {
	n := newNetns(t)
	c := newCluster(t, 23270, n.hostIP+":23271")
	far := c.addWorker("far", n.command(c.workerArgs("far")...))
	s := c.store()
	// Every match goes over the link while the far worker is alone.
	waitFor(t, "3 matches finished over the link", 40*time.Second, func() bool { return finishedCount(t, s) >= 3 })
	near := c.startWorker("")
	before := c.workerInfo("far")
	var id int64
	far, id = c.catchMidMatch(s, []*clitest.Proc{far}, func(*clitest.Proc) { n.cut() }, func(w *clitest.Proc) *clitest.Proc { n.heal(); return w })
	t.Logf("cut the link while %s ran match %d", far.Name, id)
	waitFor(t, "the far worker leaves the list", 30*time.Second, func() bool { return c.workerInfo("far") == nil })
	waitFor(t, fmt.Sprintf("match %d finished by the near worker", id), 30*time.Second, func() bool { return c.match(s, id).State == store.Finished })
	done := c.match(s, id)
	if done.Turns == 0 || len(done.Seats) == 0 {
		t.Fatalf("match %d finished without its result: %+v", id, done)
	}
	if near.Exited() || far.Exited() {
		t.Fatal("a worker exited during the partition")
	}

	n.heal()
	// The far worker, back, learns that its lease is lost (or reports its
	// copy, which the server refuses) and goes on with new matches.
	waitFor(t, "the far worker back, past the cut-off match", 60*time.Second, func() bool {
		w := c.workerInfo("far")
		return w != nil && w.MatchesRun > before.MatchesRun && !slices.Contains(w.Current, id)
	})
	// Its copy ends one of three ways: stopped when a renewal of its lease
	// is answered "lost", played out and reported late (the server refuses
	// it: not the match's current lease), or, when the cut came while it
	// was still fetching a bot's module (the house's are megabytes), given
	// up and handed back. Either way the match stays as the near worker
	// left it.
	waitFor(t, "the far worker's copy dropped or given up", 30*time.Second, func() bool {
		log := filepath.Join(c.dir, "workers.log")
		return logHas(log, id, "WARN", "lease lost") || logHas(filepath.Join(c.dir, "serve.log"), id, "WARN", "worker result refused") ||
			logHas(log, id, "WARN", "will retry")
	})
	n0 := finishedCount(t, s)
	waitFor(t, "2 more matches after the partition", 40*time.Second, func() bool { return finishedCount(t, s) >= n0+2 })
	after := c.match(s, id)
	if after.State != done.State || after.Turns != done.Turns || !after.FinishedAt.Equal(done.FinishedAt) {
		t.Fatalf("match %d changed when the far worker came back: %+v -> %+v", id, done, after)
	}
	exactlyOnce(t, s)
}
