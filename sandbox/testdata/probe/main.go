//go:build wasip1

// Command probe is the sandbox's test bot. Every observation names what it
// does this turn ("cmd"), so one Go module plays every part of the hostile
// corpus; what it must do before its first read of stdin is set at link time
// with -ldflags "-X main.mode=exitstart|spinstart|loopturn" (loopturn: compute
// forever on every observation, whatever it says).
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

var mode string

//go:wasmimport arena fuel_left
func fuelLeft() int64

type observation struct {
	Cmd  string `json:"cmd"`
	N    int64  `json:"n"`
	Fuel struct {
		Left    int64 `json:"left"`
		PerTurn int64 `json:"per_turn"`
		Cap     int64 `json:"cap"`
	} `json:"fuel"`
}

var sink uint64

func main() {
	switch mode {
	case "exitstart":
		os.Exit(3)
	case "spinstart":
		for {
			sink = sink*3 + 1
		}
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	var hoard [][]byte
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return // end of the match
		}
		var o observation
		if err := json.Unmarshal(line, &o); err != nil {
			fmt.Fprintf(os.Stderr, "bad observation %q: %v\n", line, err)
		}
		if mode == "loopturn" {
			o.Cmd = "loop"
		}
		switch o.Cmd {
		case "spend": // spend o.N fuel of this turn's tank, then answer
			for o.Fuel.Left-fuelLeft() < o.N {
				burn(200)
			}
		case "loop":
			for {
				sink = sink*3 + 1
			}
		case "loophost":
			for {
				sink += uint64(fuelLeft())
			}
		case "grow":
			for {
				b := make([]byte, 8<<20)
				b[len(b)-1] = 1
				hoard = append(hoard, b)
			}
		case "recurse":
			sink = recurse(1)
		case "nonewline":
			os.Stdout.WriteString(`{"partial":`)
			continue
		case "huge":
			os.Stdout.Write(bytes.Repeat([]byte("x"), 100<<20))
		case "exit":
			os.Exit(4)
		case "panic":
			panic("probe was told to panic")
		case "closeout":
			os.Stdout.Close()
			continue
		case "fs":
			fmt.Printf(`{"fs_open":%q,"fs_write":%q,"fs_readdir":%q,"env":%d,"args":%q}`+"\n",
				errText(os.ReadFile("/etc/passwd")), errText[any](nil, os.WriteFile("x.txt", []byte("x"), 0o644)),
				errText(os.ReadDir(".")), len(os.Environ()), os.Args)
			continue
		case "sleep":
			time.Sleep(time.Duration(o.N))
		case "log":
			for i := int64(0); i < o.N; i++ {
				fmt.Fprintf(os.Stderr, "log line %d\n", i)
			}
		}
		var r [8]byte
		rand.Read(r[:])
		fmt.Printf(`{"left":%d,"per_turn":%d,"cap":%d,"fuel_left":%d,"now":%d,"rand":%d}`+"\n",
			o.Fuel.Left, o.Fuel.PerTurn, o.Fuel.Cap, fuelLeft(), time.Now().UnixNano(), binary.LittleEndian.Uint64(r[:]))
	}
}

// burn spends fuel without host calls.
func burn(n int) {
	for i := 0; i < n; i++ {
		sink = sink*6364136223846793005 + 1442695040888963407
	}
}

func recurse(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	return recurse(n+1) + 1
}

func errText[T any](_ T, err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
