// Code generated from the Arena repository's sdk/fuel_other.go by `go generate ./internal/kits`. DO NOT EDIT.

//go:build !wasip1

package main

// fuelLeft returns -1 outside the platform's sandbox: a native build is not
// metered.
func fuelLeft() int64 { return -1 }
