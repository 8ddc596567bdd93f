package snake

import (
	"embed"
	"io/fs"
)

// The kit files only: never a bot someone built inside a kit's folder.
//
//go:embed kits/go/*/*.go kits/go/*/README.md kits/c/*/*.c kits/c/*/*.h kits/c/*/README.md kits/rust/*/*.rs kits/rust/*/README.md
var kits embed.FS

// Kits returns the game's starter kits, as <lang>/<kit>/<file>.
func (Game) Kits() fs.FS { sub, _ := fs.Sub(kits, "kits"); return sub }
