// Code generated from the Arena repository's sdk/fuel_wasip1.go by `go generate ./internal/kits`. DO NOT EDIT.

//go:build wasip1

package main

// fuelLeft is the platform's import arena.fuel_left (docs/bots.md).
//
//go:wasmimport arena fuel_left
func fuelLeft() int64
