package strictjson

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZCPU(t *testing.T) {
	if os.Getenv("ZZCPU") == "" {
		t.Skip()
	}
	body := benchBody()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	run := func(name string, f func()) {
		best := time.Duration(1 << 62)
		for r := 0; r < 7; r++ {
			const n = 2000
			runtime.GC()
			c0 := threadCPU()
			for i := 0; i < n; i++ {
				f()
			}
			d := (threadCPU() - c0) / n
			best = min(best, d)
		}
		fmt.Printf("%-14s min thread-CPU %v/op\n", name, best)
	}
	run("DecodeAndHash", func() { var r benchResult; DecodeAndHash(body, &r) })
	run("Decode", func() { var r benchResult; Decode(body, &r) })
	run("Hash", func() { Hash(body) })
}
