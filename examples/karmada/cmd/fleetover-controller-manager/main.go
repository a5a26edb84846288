// Command fleetover-controller-manager runs fleetover's reference
// controllers against a Karmada control plane, with
// karmada-controller-manager's command line. See docs/karmada.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/fleetover/fleetover/examples/karmada/cmd/fleetover-controller-manager/app"
)

func main() {
	o := app.NewOptions()
	fs := flag.NewFlagSet("fleetover-controller-manager", flag.ContinueOnError)
	o.AddFlags(fs)
	if err := o.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "fleetover-controller-manager:", err)
		os.Exit(2)
	}
	log := app.NewLogger(o, os.Stderr)
	ctrl.SetLogger(log)

	cfg, err := app.RESTConfig(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleetover-controller-manager:", err)
		os.Exit(1)
	}
	if err := app.Run(ctrl.SetupSignalHandler(), cfg, o, log, nil); err != nil {
		log.Error(err, "exiting")
		os.Exit(1)
	}
}
