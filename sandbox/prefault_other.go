//go:build !linux

package sandbox

// prefault does nothing here: the pages come at the guest's page faults.
func prefault([]byte) {}
