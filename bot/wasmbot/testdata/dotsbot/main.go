//go:build wasip1

// Command dotsbot is a trivial Dots and Boxes bot for the tests and
// benchmarks: it draws the first undrawn edge, horizontal ones first. It
// scans the observation by hand rather than with encoding/json, whose
// reflection costs about 500,000 fuel per observation in Go's wasm output,
// so the benchmark measures the platform rather than the bot.
package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

const rows, cols = 5, 5

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	var out []byte
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			return
		}
		out = appendMove(out[:0], line)
		os.Stdout.Write(out)
	}
}

// appendMove finds the first false in the "h" array (6 rows of 5), then in
// the "v" array (5 rows of 6), and appends it as an answer line.
func appendMove(dst, obs []byte) []byte {
	for _, o := range []struct {
		field     string
		orient    string
		rowLength int
	}{{`"h":`, "H", cols}, {`"v":`, "V", cols + 1}} {
		i := bytes.Index(obs, []byte(o.field))
		if i < 0 {
			break
		}
		n, depth := 0, 0
		for _, c := range obs[i+len(o.field):] {
			switch c {
			case '[':
				depth++
			case ']':
				depth--
			case 't':
				n++
			case 'f':
				dst = append(dst, `{"orient":"`+o.orient+`","r":`...)
				dst = strconv.AppendInt(dst, int64(n/o.rowLength), 10)
				dst = append(dst, `,"c":`...)
				dst = strconv.AppendInt(dst, int64(n%o.rowLength), 10)
				return append(dst, "}\n"...)
			}
			if depth == 0 {
				break
			}
		}
	}
	return append(dst, `{"orient":"H","r":0,"c":0}`+"\n"...)
}
