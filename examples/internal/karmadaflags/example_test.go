package karmadaflags_test

import (
	"flag"
	"fmt"

	"github.com/fleetover/fleetover/examples/internal/karmadaflags"
)

// Karmada's own deploy arguments parse unchanged: the gates switch on,
// and the flags of controllers fleetover does not run are listed.
func Example() {
	o := karmadaflags.NewControllerManager()
	fs := flag.NewFlagSet("karmada-controller-manager", flag.ContinueOnError)
	o.AddFlags(fs)
	args := []string{
		"--feature-gates=AllAlpha=true,AllBeta=true",
		"--enable-no-execute-taint-eviction=true",
		"--concurrent-work-syncs=10",
	}
	if err := karmadaflags.Foreign(args); err != nil {
		fmt.Println(err)
		return
	}
	if err := fs.Parse(args); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("Failover:", o.FeatureGates.Enabled(karmadaflags.GateFailover))
	fmt.Println("StatefulFailoverInjection:", o.FeatureGates.Enabled(karmadaflags.GateStatefulFailoverInjection))
	fmt.Println("valid:", len(o.Validate()) == 0)
	for _, f := range karmadaflags.Ignored(fs) {
		fmt.Printf("ignored --%s=%s (%s)\n", f.Name, f.Value, f.Owner)
	}
	// Output:
	// Failover: true
	// StatefulFailoverInjection: true
	// valid: true
	// ignored --concurrent-work-syncs=10 (the execution and work status controllers read it, and they run in karmada-controller-manager)
}
