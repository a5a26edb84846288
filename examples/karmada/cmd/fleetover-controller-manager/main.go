// Command fleetover-controller-manager runs fleetover's reference
// controllers against a Karmada control plane. See docs/karmada.md.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/fleetover/fleetover/examples/karmada/cmd/fleetover-controller-manager/app"
)

func main() {
	o := app.NewOptions()
	fs := flag.NewFlagSet("fleetover-controller-manager", flag.ExitOnError)
	o.AddFlags(fs)
	_ = fs.Parse(os.Args[1:])

	var h slog.Handler = slog.NewJSONHandler(os.Stderr, nil)
	if o.LogFormat == "text" {
		h = slog.NewTextHandler(os.Stderr, nil)
	}
	log := logr.FromSlogHandler(h)
	ctrl.SetLogger(log)

	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubeconfig of the Karmada control plane:", err)
		os.Exit(1)
	}
	if err := app.Run(ctrl.SetupSignalHandler(), cfg, o, log, nil); err != nil {
		log.Error(err, "exiting")
		os.Exit(1)
	}
}
