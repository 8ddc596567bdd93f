//go:build !linux

package sandbox

import "time"

// Elsewhere the guest's CPU time is not known, and the backstop counts wall
// time instead (Instance.Ask).
func threadClock() (int32, bool)                      { return 0, false }
func threadCPUTime(clock int32) (time.Duration, bool) { return 0, false }
