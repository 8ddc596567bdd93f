//go:build wasip1

// Command trivial answers {} to every line: the round-trip benchmark bot.
package main

import (
	"bufio"
	"os"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	answer := []byte("{}\n")
	for {
		if _, err := in.ReadSlice('\n'); err != nil {
			return
		}
		os.Stdout.Write(answer)
	}
}
