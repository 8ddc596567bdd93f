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
// the workers' consumer and acknowledge them, ask for leases and for the
// modules of the jobs it holds (ModuleSubject), publish results,
// announcements and live turns, and receive replies on its own inbox. Not:
// read the object store, publish jobs, read results, or create, change,
// purge or delete any stream or consumer. The NATS configuration in
// docs/deploy.md says the same for an external cluster.
func WorkerPermissions() *natsserver.Permissions {
	return &natsserver.Permissions{
		Publish: &natsserver.SubjectPermission{Allow: []string{
			"$JS.API.CONSUMER.INFO." + JobStream + "." + JobConsumer,
			"$JS.API.CONSUMER.MSG.NEXT." + JobStream + "." + JobConsumer,
			"$JS.ACK." + JobStream + "." + JobConsumer + ".>",
			ResultSubject,
			LeaseSubject,
			ModuleSubject,
			AnnounceSubject,
			livePrefix + ">",
		}},
		Subscribe: &natsserver.SubjectPermission{Allow: []string{WorkerInbox + ".>"}},
	}
}
