// A bot that reads its first observation and then computes forever: the
// platform must refuse it at the smoke match.
package main

import (
	"bufio"
	"os"
)

var sink uint64

func main() {
	r := bufio.NewReader(os.Stdin)
	r.ReadString('\n')
	for i := uint64(0); ; i++ {
		sink += i * i
	}
}
