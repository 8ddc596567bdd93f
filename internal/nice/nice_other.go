//go:build !linux

package nice

import "errors"

// lowerThread does nothing where a nice value cannot be set for one thread.
func lowerThread(n int, batch bool) bool { return false }

func threadNice() (int, error) { return 0, errors.New("nice: per-thread nice values are Linux only") }
