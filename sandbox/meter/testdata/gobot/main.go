// gobot is a small Go program built for GOOS=wasip1 by the tests: it reads a
// number n from stdin and prints facts about the primes below n, exercising
// the runtime, maps, sorting, strings and JSON (and so memory.copy/fill).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

//go:wasmimport arena fuel_left
func fuelLeft() int64

func main() {
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad input:", err)
		os.Exit(2)
	}
	composite := make([]bool, n)
	var primes []int
	for i := 2; i < n; i++ {
		if composite[i] {
			continue
		}
		primes = append(primes, i)
		for j := i * i; j < n; j += i {
			composite[j] = true
		}
	}
	lastDigits := map[int]int{}
	for _, p := range primes {
		lastDigits[p%10]++
	}
	digits := make([]int, 0, len(lastDigits))
	for d := range lastDigits {
		digits = append(digits, d)
	}
	sort.Ints(digits)
	var parts []string
	for _, d := range digits {
		parts = append(parts, fmt.Sprintf("%d:%d", d, lastDigits[d]))
	}
	answer, _ := json.Marshal(map[string]any{"count": len(primes), "last": primes[len(primes)-1], "digits": strings.Join(parts, " ")})
	fmt.Println(string(answer))
	fmt.Fprintln(os.Stderr, "fuel_left", fuelLeft())
}
