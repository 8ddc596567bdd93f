package worker

import (
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/arenabots/arena/internal/jobs"
)

// InProcessNATS starts an in-process NATS server with JetStream in the test's
// temporary directory and connects to it; both close when the test ends.
// Exported from a test file so that the external worker_test package can
// share it (it is not part of the package outside tests).
func InProcessNATS(t testing.TB) *nats.Conn {
	t.Helper()
	ns, err := jobs.StartServer(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	nc, err := jobs.Connect(ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}
