// A CPU-bound program for spaa-annotate's tests: recursion, mutual
// recursion, a helper shared by several callers, and inlined calls.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"time"
)

var sink uint64

// square is small: the compiler inlines it into its callers.
func square(x uint64) uint64 {
	for i := 0; i < 8; i++ {
		x = x*x + 7
	}
	return x
}

// mix is shared by three callers and kept out of line.
//
//go:noinline
func mix(x uint64) uint64 {
	for i := 0; i < 50; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func fib(n int) uint64 {
	if n < 2 {
		return mix(uint64(n))
	}
	return fib(n-1) + fib(n-2)
}

func even(n int) uint64 {
	if n == 0 {
		return mix(1)
	}
	return odd(n-1) + mix(uint64(n))
}

func odd(n int) uint64 {
	if n == 0 {
		return mix(2)
	}
	return even(n-1) + square(uint64(n)) + mix(uint64(n))
}

func sumSquares(n int) uint64 {
	var s uint64
	for i := 0; i < n; i++ {
		s += square(uint64(i))
		s += mix(s)
		s += square(s)
	}
	return s
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(f)
	end := time.Now().Add(3 * time.Second)
	for time.Now().Before(end) {
		sink += fib(18)
		for i := 0; i < 40; i++ {
			sink += even(40 + i%2)
		}
		sink += sumSquares(2000)
	}
	pprof.StopCPUProfile()
	f.Close()
	fmt.Println(sink != 0)
}
