// Command bot makes the usual mistakes of a new bot author, one per mode
// (set with -ldflags "-X main.mode=..."), for botcheck's tests:
//
//	debug    prints a debug line on stdout before every answer
//	twice    reads a second line before answering
//	loop     never answers: loops forever
//	startup  spends more than the start-up allowance before reading stdin
package main

import (
	"bufio"
	"fmt"
	"os"
)

var mode string

// answer is a well-formed Dots and Boxes answer.
const answer = `{"orient":"H","r":0,"c":0}`

var sink int

func spin(n int) {
	for i := 0; i < n; i++ {
		sink += i ^ sink
	}
}

func main() {
	if mode == "startup" {
		for {
			spin(1 << 20)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		switch mode {
		case "debug":
			fmt.Println("debug: got an observation")
		case "twice":
			in.Scan()
		case "loop":
			for {
				spin(1 << 20)
			}
		}
		fmt.Println(answer)
	}
}
