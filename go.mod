module github.com/arenabots/arena

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/tetratelabs/wazero v1.12.0
	golang.org/x/term v0.44.0
)

require golang.org/x/sys v0.46.0 // indirect
