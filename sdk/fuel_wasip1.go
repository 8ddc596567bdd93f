//go:build wasip1

package sdk

// fuelLeft is the platform's import arena.fuel_left (docs/bots.md).
//
//go:wasmimport arena fuel_left
func fuelLeft() int64
