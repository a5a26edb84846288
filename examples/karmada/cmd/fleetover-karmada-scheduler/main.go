// Command fleetover-karmada-scheduler is karmada-scheduler (Karmada
// v1.18.1, the module at that version) with fleetover's filter plugins
// registered beside Karmada's own: FleetoverDispatchSuspension,
// FleetoverTaintToleration and FleetoverEvictionHistory (package plugins).
// It takes every karmada-scheduler flag; --plugins enables and disables
// the plugins as it does Karmada's ('*', the default, enables all of them).
//
// Before the scheduler starts, it starts metadata-only informers on the
// same karmada-apiserver (--kubeconfig, --master) for the annotations the
// eviction-history plugin reads.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/json/register" // the JSON log format, as karmada-scheduler has it
	controllerruntime "sigs.k8s.io/controller-runtime"

	"github.com/karmada-io/karmada/cmd/scheduler/app"

	"github.com/fleetover/fleetover/examples/karmada/cmd/fleetover-karmada-scheduler/plugins"
)

func main() {
	ctx := controllerruntime.SetupSignalHandler()
	os.Exit(run(ctx))
}

func run(ctx context.Context) int {
	annotations := &lateAnnotations{}
	cfg := plugins.Config{Annotations: annotations}
	var opts []app.Option
	for name, factory := range cfg.Registry() {
		opts = append(opts, app.WithPlugin(name, factory))
	}
	cmd := app.NewSchedulerCommand(ctx, opts...)
	schedule := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		flags := c.Flags()
		restConfig, err := clientcmd.BuildConfigFromFlags(flags.Lookup("master").Value.String(), flags.Lookup("kubeconfig").Value.String())
		if err != nil {
			return fmt.Errorf("error building kubeconfig: %w", err)
		}
		client, err := metadata.NewForConfig(restConfig)
		if err != nil {
			return err
		}
		informers := plugins.NewInformerAnnotations(client, 0)
		if err := informers.Start(ctx); err != nil {
			return err
		}
		annotations.Annotations = informers
		return schedule(c, args)
	}
	code := cli.Run(cmd)
	logs.FlushLogs()
	return code
}

// lateAnnotations lets the plugin factories be registered before the
// command has parsed the flags that say where the API server is: the
// informers are set once, before the scheduler (and so any plugin) runs.
type lateAnnotations struct{ plugins.Annotations }
