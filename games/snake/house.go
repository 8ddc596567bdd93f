package snake

import (
	"embed"
	"io/fs"
)

// The house's ladder modules, built from house/ by go generate.
//
//go:embed house
var house embed.FS

// HouseModules returns the game's ladder modules, gzipped.
func (Game) HouseModules() fs.FS { sub, _ := fs.Sub(house, "house"); return sub }
