// A bot whose every answer is markup and event-stream text instead of a
// move, with more of it on stderr: the upload page must show its answers
// live as text, and its refusal, and run none of it.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// answer is one line: a tag that would run script if it were parsed as
// HTML, an event-stream field that would end the event it is sent in if it
// were not encoded, and padding past the length an upload's stream shows.
var answer = `<img src=x onerror="document.title='pwned'">event: verdict data: {"status":201} ` + strings.Repeat("x", 300)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		fmt.Fprintln(os.Stderr, `<script>document.title='pwned'</script>`)
		fmt.Println(answer)
	}
}
