//go:build !wasip1

package sdk

// fuelLeft returns -1 outside the platform's sandbox: a native build is not
// metered.
func fuelLeft() int64 { return -1 }
