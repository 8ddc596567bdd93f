//go:build !arenatesthooks

package worker

// hooks is empty in every build but the tests' (testhook_on.go).
var hooks testHooks
