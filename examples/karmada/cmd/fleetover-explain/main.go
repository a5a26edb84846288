// Command fleetover-explain prints why a Karmada binding's workload is
// where it is: the chain of failover decisions from its clusters to its
// dispatch, and the step that holds it. See docs/karmada.md.
package main

import (
	"flag"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"

	manager "github.com/fleetover/fleetover/examples/karmada/cmd/fleetover-controller-manager/app"
	"github.com/fleetover/fleetover/examples/karmada/cmd/fleetover-explain/app"
)

func main() {
	o := app.NewOptions()
	fs := flag.NewFlagSet("fleetover-explain", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), app.Usage); fs.PrintDefaults() }
	o.AddFlags(fs) // --kubeconfig among them
	if err := o.Manager.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			os.Exit(app.ExitSettled)
		}
		fmt.Fprintln(os.Stderr, "fleetover-explain:", err)
		os.Exit(app.ExitUsage)
	}
	cfg, err := manager.RESTConfig(o.Manager)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleetover-explain:", err)
		os.Exit(app.ExitError)
	}
	os.Exit(app.Run(ctrl.SetupSignalHandler(), cfg, o, fs.Args(), os.Stdout, os.Stderr))
}
