//go:build wasip1

// Command search is the CPU-heavy benchmark bot: for every line it reads, it
// solves tic-tac-toe by plain negamax (549,946 positions) and answers the
// value. testdata/c/search.c is the same program in C.
package main

import (
	"bufio"
	"fmt"
	"os"
)

var board [9]int8

var lines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

var nodes int

func won(p int8) bool {
	for _, l := range lines {
		if board[l[0]] == p && board[l[1]] == p && board[l[2]] == p {
			return true
		}
	}
	return false
}

func negamax(p int8, depth int) int {
	nodes++
	if won(-p) {
		return -1
	}
	if depth == 9 {
		return 0
	}
	best := -2
	for i := range board {
		if board[i] == 0 {
			board[i] = p
			if v := -negamax(-p, depth+1); v > best {
				best = v
			}
			board[i] = 0
		}
	}
	return best
}

func main() {
	in := bufio.NewReader(os.Stdin)
	for {
		if _, err := in.ReadBytes('\n'); err != nil {
			return
		}
		nodes = 0
		v := negamax(1, 0)
		fmt.Printf("{\"value\":%d,\"nodes\":%d}\n", v, nodes)
	}
}
