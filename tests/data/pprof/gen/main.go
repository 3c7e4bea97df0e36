// Writes cpu.pprof and heap.pprof: a CPU profile of two busy functions
// (one of them inlined into its caller) and a heap profile of allocations
// kept live and dropped.
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

var sink []byte
var keep [][]byte

//go:noinline
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func square(x int) int { return x * x } // inlined

//go:noinline
func sumSquares(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += square(i) % 7
	}
	return s
}

//go:noinline
func allocLive(n int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, 4096))
	}
}

//go:noinline
func allocTemp(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 8192)
	}
}

func main() {
	runtime.MemProfileRate = 4096
	f, _ := os.Create("cpu.pprof")
	pprof.StartCPUProfile(f)
	t := 0
	for i := 0; i < 6; i++ {
		t += fib(30) + sumSquares(40000000)
	}
	pprof.StopCPUProfile()
	f.Close()
	allocLive(300)
	allocTemp(2000)
	runtime.GC()
	h, _ := os.Create("heap.pprof")
	pprof.WriteHeapProfile(h)
	h.Close()
	if t == 42 {
		println(t)
	}
}
