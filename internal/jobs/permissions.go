package jobs

import (
	natsserver "github.com/nats-io/nats-server/v2/server"
)

// WorkerInbox is the prefix of a worker connection's reply subjects
// (nats.CustomInboxPrefix): its permissions let it receive there only, so
// that it cannot listen to the replies the server gets (results pulled,
// streams' state).
const WorkerInbox = "_INBOX.worker"

// WorkerPermissions is what the worker user may do on NATS: pull jobs from
// the workers' consumer and acknowledge them, read modules from the object
// store, ask for leases, publish results, announcements and live turns,
// and receive replies on its own inbox. Not: publish jobs, read results,
// or create, change, purge or delete any stream or consumer but the
// short-lived ordered consumers an object store read makes. The NATS configuration in
// docs/deploy.md says the same for an external cluster.
func WorkerPermissions() *natsserver.Permissions {
	objStream := "OBJ_" + WasmBucket
	return &natsserver.Permissions{
		Publish: &natsserver.SubjectPermission{Allow: []string{
			"$JS.API.CONSUMER.INFO." + JobStream + "." + JobConsumer,
			"$JS.API.CONSUMER.MSG.NEXT." + JobStream + "." + JobConsumer,
			"$JS.ACK." + JobStream + "." + JobConsumer + ".>",
			"$JS.API.STREAM.INFO." + objStream,
			"$JS.API.STREAM.MSG.GET." + objStream,
			"$JS.API.DIRECT.GET." + objStream + ".>",
			"$JS.API.CONSUMER.CREATE." + objStream,
			"$JS.API.CONSUMER.CREATE." + objStream + ".>",
			"$JS.API.CONSUMER.DELETE." + objStream + ".>",
			"$JS.FC." + objStream + ".>",
			ResultSubject,
			LeaseSubject,
			AnnounceSubject,
			livePrefix + ">",
		}},
		Subscribe: &natsserver.SubjectPermission{Allow: []string{WorkerInbox + ".>"}},
	}
}
