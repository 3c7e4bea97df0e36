// A CPU-bound program for the frame filter tests: recursion (fib), mutual
// recursion (even/odd), a helper shared by several callers (mix, called by
// alpha, beta and gamma) and calls the compiler inlines (square, twice).
package main

import (
	"os"
	"runtime/pprof"
	"strconv"
	"time"
)

var sink uint64

// square and twice are small enough to be inlined.
func square(x uint64) uint64 { return x * x }
func twice(x uint64) uint64  { return square(x) + square(x+1) }

//go:noinline
func mix(x uint64) uint64 {
	for i := 0; i < 200; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		x += twice(x & 0xff)
	}
	return x
}

//go:noinline
func fib(n int) uint64 {
	if n < 2 {
		return mix(uint64(n))
	}
	return fib(n-1) + fib(n-2)
}

//go:noinline
func even(n int) uint64 {
	if n == 0 {
		return mix(1)
	}
	return odd(n-1) + 1
}

//go:noinline
func odd(n int) uint64 {
	if n == 0 {
		return mix(2)
	}
	if n%4 == 1 {
		return even(n-1) + mix(uint64(n))
	}
	return even(n-1) + square(uint64(n))
}

//go:noinline
func alpha() uint64 {
	s := uint64(0)
	for i := 0; i < 3000; i++ {
		s += mix(uint64(i))
	}
	return s
}

//go:noinline
func beta() uint64 {
	s := uint64(0)
	for i := 0; i < 1000; i++ {
		s += mix(uint64(i)) + twice(uint64(i))
	}
	return s
}

//go:noinline
func gamma() uint64 {
	s := uint64(0)
	for i := uint64(0); i < 2000000; i++ {
		s += twice(i) ^ (s >> 3)
	}
	return s + fib(12) + even(40)
}

// main PROFILE [SECONDS]: a CPU profile of SECONDS (default 6) of work.
func main() {
	secs := 6
	if len(os.Args) > 2 {
		if n, err := strconv.Atoi(os.Args[2]); err == nil && n > 0 {
			secs = n
		}
	}
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(f)
	end := time.Now().Add(time.Duration(secs) * time.Second)
	for time.Now().Before(end) {
		sink += alpha() + beta() + gamma() + fib(18) + even(3000)
	}
	pprof.StopCPUProfile()
	f.Close()
}
