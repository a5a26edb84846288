//go:build unix

package health

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time this process used so far. Benchmarks
// report it per op next to ns/op because on a shared machine wall time
// also counts the time other processes held the CPU.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuTimer measures the process CPU time of a benchmark loop.
type cpuTimer struct{ start time.Duration }

func startCPU() cpuTimer { return cpuTimer{start: processCPU()} }

// report adds a cpu-ns/op metric.
func (c cpuTimer) report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(processCPU()-c.start)/float64(b.N), "cpu-ns/op")
	}
}
