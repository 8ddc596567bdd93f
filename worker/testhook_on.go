//go:build arenatesthooks

package worker

import "os"

// hooks are read once, at start: a bad value stops the process, so that a
// test never runs without the fault it asked for.
var hooks = func() testHooks {
	h, err := parseTestHooks(os.Getenv(TestHooksEnv))
	if err != nil {
		panic(err)
	}
	return h
}()
