package app

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	manager "github.com/fleetover/fleetover/examples/karmada/cmd/fleetover-controller-manager/app"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Exit codes of fleetover-explain.
const (
	// ExitSettled: the chain was printed and no step holds the workload.
	ExitSettled = 0
	// ExitError: the binding, its clusters or its policy could not be
	// read (not found, no access, API server unreachable).
	ExitError = 1
	// ExitUsage: the arguments or flags are wrong.
	ExitUsage = 2
	// ExitHeld: the chain was printed and a step holds the workload where
	// it is (a failover waits, is under way, or cannot happen).
	ExitHeld = 3
)

// Options are fleetover-explain's flags: the controller manager's, so the
// explanation follows the configuration the controllers run with (give it
// the same flags), and the clock.
type Options struct {
	Manager *manager.Options
	// Clock is the time the chain is explained at; nil is the real clock.
	Clock clock.PassiveClock
}

// NewOptions returns the controller manager's defaults.
func NewOptions() *Options { return &Options{Manager: manager.NewOptions()} }

// AddFlags registers the flags on fs.
func (o *Options) AddFlags(fs *flag.FlagSet) { o.Manager.AddFlags(fs) }

// Usage is the command's synopsis.
const Usage = `usage: fleetover-explain [flags] NAMESPACE/NAME   explain a ResourceBinding
       fleetover-explain [flags] NAME             explain a ClusterResourceBinding
Flags: --kubeconfig and the flags of fleetover-controller-manager (give the
same --feature-gates, --controllers, ... as the controllers run with).
Exit codes: 0 nothing holds the workload, 1 cannot read, 2 usage, 3 a step
holds the workload.`

// ParseTarget turns the argument into a binding kind and key: NAMESPACE/NAME
// is a ResourceBinding, a NAME without a slash a ClusterResourceBinding.
// The namespace must be a DNS label and the name a DNS subdomain, as the
// API server requires; an error names the part that is not.
func ParseTarget(arg string) (controllers.BindingKind, types.NamespacedName, error) {
	parts := strings.Split(arg, "/")
	var kind controllers.BindingKind
	var key types.NamespacedName
	switch {
	case len(parts) == 1 && parts[0] != "":
		kind, key = controllers.ClusterResourceBindingKind, types.NamespacedName{Name: parts[0]}
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		kind, key = controllers.ResourceBindingKind, types.NamespacedName{Namespace: parts[0], Name: parts[1]}
	default:
		return "", types.NamespacedName{}, fmt.Errorf("binding %q: want NAMESPACE/NAME (ResourceBinding) or NAME (ClusterResourceBinding)", arg)
	}
	var errs field.ErrorList
	if key.Namespace != "" {
		for _, msg := range validation.IsDNS1123Label(key.Namespace) {
			errs = append(errs, field.Invalid(field.NewPath("namespace"), key.Namespace, msg))
		}
	}
	for _, msg := range validation.IsDNS1123Subdomain(key.Name) {
		errs = append(errs, field.Invalid(field.NewPath("name"), key.Name, msg))
	}
	if len(errs) > 0 {
		return "", types.NamespacedName{}, fmt.Errorf("binding %q: %w", arg, errs.ToAggregate())
	}
	return kind, key, nil
}

// Run explains the binding args names against the control plane at cfg,
// prints the chain on stdout and returns the exit code.
func Run(ctx context.Context, cfg *rest.Config, o *Options, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, Usage)
		return ExitUsage
	}
	kind, key, err := ParseTarget(args[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return ExitUsage
	}
	if err := o.Manager.Validate(); err != nil {
		fmt.Fprintln(stderr, err)
		return ExitUsage
	}
	scheme, err := controllers.NewScheme()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return ExitError
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		fmt.Fprintln(stderr, "client for the Karmada control plane:", err)
		return ExitError
	}
	clk := o.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	ex, err := controllers.ExplainBinding(ctx, c, kind, key, o.Manager.Config().ExplainConfig(), clk.Now())
	if err != nil {
		if apierrors.IsNotFound(err) {
			err = fmt.Errorf("%s %s not found", kind, describe(key))
		}
		fmt.Fprintln(stderr, err)
		return ExitError
	}
	if err := Print(stdout, ex, clk.Now()); err != nil {
		return ExitError
	}
	if _, held := ex.Held(); held {
		return ExitHeld
	}
	return ExitSettled
}

func describe(key types.NamespacedName) string {
	if key.Namespace == "" {
		return key.Name
	}
	return key.String()
}

// Print writes the chain as a person reads it: a header naming the
// binding, one line per step (the holding step marked with >), and a
// closing line saying what holds the workload and when that changes by
// itself.
func Print(w io.Writer, ex *controllers.Explanation, now time.Time) error {
	fmt.Fprintf(w, "%s %s at %s\n", ex.Kind, describe(ex.Key), stamp(now))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  STEP\tREASON\tSINCE\tUNTIL\tMESSAGE")
	for i, s := range ex.Steps {
		mark := " "
		if i == ex.Holding {
			mark = ">"
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t%s\n", mark, s.Step, s.Reason, stamp(s.Since), stamp(s.Until), s.Message)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if step, held := ex.Held(); held {
		fmt.Fprintf(w, "held by %s (%s)", step.Step, step.Reason)
		if step.Passing {
			fmt.Fprint(w, ", passing: a controller acts on it now")
		}
		if !ex.NextChange.IsZero() {
			fmt.Fprintf(w, "; changes by itself at %s", stamp(ex.NextChange))
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "nothing holds the workload")
	}
	if ex.Condition != nil {
		fmt.Fprintf(w, "condition %s=%s reason %s, written by the controllers\n", ex.Condition.Type, ex.Condition.Status, ex.Condition.Reason)
	}
	for _, warning := range ex.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	return nil
}

// stamp prints a time in UTC to the second, "-" for none.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
