//go:build !unix

package failover_test

import "testing"

type cpuTimer struct{}

func startCPU() cpuTimer { return cpuTimer{} }

// report does nothing where getrusage is not available.
func (cpuTimer) report(*testing.B) {}
