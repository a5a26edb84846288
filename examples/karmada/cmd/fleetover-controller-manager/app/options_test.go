package app

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetover/fleetover/eviction"

	"github.com/fleetover/fleetover/examples/internal/karmadaflags"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// quiet returns options whose flag set prints nothing on an error.
func quiet() *Options {
	o := NewOptions()
	fs := flag.NewFlagSet("fleetover-controller-manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.AddFlags(fs)
	return o
}

func parsed(t *testing.T, args ...string) *Options {
	t.Helper()
	o := quiet()
	if err := o.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return o
}

func runs(c controllers.Config, name string) bool { return slices.Contains(c.Controllers, name) }

// Each of Karmada's flags for the parts fleetover replaces has its effect
// on the controllers' configuration.
func TestKarmadaFlagsDriveTheControllers(t *testing.T) {
	c := parsed(t).Config()
	if runs(c, controllers.ControllerTaintManager) || runs(c, controllers.ControllerClusterTaintPolicy) {
		t.Errorf("defaults run %v: without the Failover gate Karmada runs neither the taint manager nor the ClusterTaintPolicy controller", c.Controllers)
	}
	for _, name := range []string{controllers.ControllerCluster, controllers.ControllerClusterStatus, controllers.ControllerGracefulEviction,
		controllers.ControllerApplicationFailover, controllers.ControllerBinding, ControllerFailoverScheduler, ControllerFailoverCondition} {
		if !runs(c, name) {
			t.Errorf("defaults do not run %s: %v", name, c.Controllers)
		}
	}
	if c.ProbeInterval != 10*time.Second || c.MonitorPeriod != 5*time.Second {
		t.Errorf("probe interval %v, monitor period %v: want --cluster-status-update-frequency (10s) and --cluster-monitor-period (5s)", c.ProbeInterval, c.MonitorPeriod)
	}
	if c.StatefulFailoverInjection || c.GracefulEvictionDisabled || c.Pacer.Rate != 0.5 || c.Assess.Timeout != 10*time.Minute {
		t.Errorf("defaults: injection %t, graceful eviction off %t, rate %v, timeout %v; want Karmada's", c.StatefulFailoverInjection, c.GracefulEvictionDisabled, c.Pacer.Rate, c.Assess.Timeout)
	}

	c = parsed(t, "--feature-gates=Failover=true", "--enable-no-execute-taint-eviction", "--no-execute-taint-eviction-purge-mode=Directly",
		"--cluster-status-update-frequency=3s", "--cluster-monitor-period=7s", "--concurrent-resourcebinding-syncs=9",
		"--rate-limiter-qps=3", "--rate-limiter-bucket-size=4", "--resource-eviction-rate=2").Config()
	if !runs(c, controllers.ControllerTaintManager) || !runs(c, controllers.ControllerClusterTaintPolicy) {
		t.Errorf("with the gate and NoExecute eviction: %v, want the taint manager and the ClusterTaintPolicy controller", c.Controllers)
	}
	if c.ClusterFailover.PurgeMode != eviction.PurgeDirectly || c.ProbeInterval != 3*time.Second || c.MonitorPeriod != 7*time.Second ||
		c.Concurrency.ResourceBindings != 9 || c.RateLimiter.QPS != 3 || c.RateLimiter.BucketSize != 4 || c.Pacer.Rate != 2 {
		t.Errorf("config %+v does not follow the flags", c)
	}
	if c := parsed(t, "--feature-gates=Failover=true", "--enable-no-execute-taint-eviction", "--enable-taint-manager=false").Config(); runs(c, controllers.ControllerTaintManager) {
		t.Errorf("--enable-taint-manager=false runs the taint manager: %v", c.Controllers)
	}
	if c := parsed(t, "--feature-gates=Failover=true", "--enable-no-execute-taint-eviction", "--controllers=*,-cluster").Config(); runs(c, controllers.ControllerTaintManager) || runs(c, controllers.ControllerCluster) || !runs(c, controllers.ControllerClusterStatus) {
		t.Errorf("--controllers=*,-cluster: %v; the taint manager is part of Karmada's cluster controller", c.Controllers)
	}
	// GracefulEviction off refuses graceful application failovers; the
	// graceful eviction controller runs on, as in Karmada.
	if c := parsed(t, "--feature-gates=GracefulEviction=false").Config(); !c.GracefulEvictionDisabled || !runs(c, controllers.ControllerGracefulEviction) {
		t.Errorf("GracefulEviction=false: disabled %t, controllers %v", c.GracefulEvictionDisabled, c.Controllers)
	}
	if c := parsed(t, "--feature-gates=StatefulFailoverInjection=true").Config(); !c.StatefulFailoverInjection {
		t.Error("StatefulFailoverInjection=true does not turn injection on")
	}
	// A rate of 0 is Karmada's (each eviction held 30 minutes).
	if c := parsed(t, "--resource-eviction-rate=0").Config(); c.Pacer.Rate != 1.0/1800 {
		t.Errorf("--resource-eviction-rate=0: pacer rate %v, want one per 30 minutes", c.Pacer.Rate)
	}
	if err := parsed(t, "--resource-eviction-rate=0").Validate(); err != nil {
		t.Errorf("--resource-eviction-rate=0 refused: %v", err)
	}
	// The purge mode is read only with NoExecute eviction on.
	if c := parsed(t, "--no-execute-taint-eviction-purge-mode=Directly").Config(); c.ClusterFailover.PurgeMode != "" {
		t.Errorf("purge mode %q without --enable-no-execute-taint-eviction, want none", c.ClusterFailover.PurgeMode)
	}
}

// Beside Karmada a binding tolerates what its policy says and nothing more,
// as Karmada since v1.15; standalone keeps fleetover's default tolerations.
func TestBesideKarmadaAddsNoDefaultTolerations(t *testing.T) {
	if c := parsed(t, "--fleetover-mode=beside-karmada").Config(); !c.NoDefaultTolerations {
		t.Error("beside-karmada adds default tolerations; Karmada adds none since v1.15")
	}
	if c := parsed(t).Config(); c.NoDefaultTolerations {
		t.Error("standalone adds no default tolerations; its own scheduler and taint manager keep fleetover's")
	}
}

// What Karmada refuses is refused, naming the flag; what belongs to
// another component is refused naming it; Karmada's other controllers and
// flags are accepted and reported.
func TestKarmadaCommandLineRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--enable-no-execute-taint-eviction", "--no-execute-taint-eviction-purge-mode=Immediately"}, "--no-execute-taint-eviction-purge-mode"},
		{[]string{"--resource-eviction-rate=-1"}, "--resource-eviction-rate"},
		{[]string{"--cluster-monitor-period=0s"}, "--cluster-monitor-period"},
		{[]string{"--controllers=*,-clusterHealth"}, "renamed to Karmada's name: cluster"},
		{[]string{"--controllers=workDispatcher"}, "renamed to Karmada's name: binding"},
		{[]string{"--controllers=*,nope"}, `"nope"`},
		{[]string{"--cluster-failure-threshold=48h"}, "--cluster-failure-threshold"},
		{[]string{"--graceful-eviction-timeout=-1s"}, "--graceful-eviction-timeout"},
		{[]string{"--logging-format=xml"}, "--logging-format"},
	} {
		err := parsed(t, tc.args...).Validate()
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: %v, want an error saying %s", tc.args, err, tc.says)
		}
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--cluster-lease-duration=40s"}, "karmada-agent"},
		{[]string{"--plugins=*"}, "karmada-scheduler"},
		{[]string{"--feature-gates=NoSuchGate=true"}, "unrecognized feature gate: NoSuchGate"},
		{[]string{"--no-such-flag"}, "flag provided but not defined"},
	} {
		o := quiet()
		if err := o.Parse(tc.args); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: %v, want an error saying %s", tc.args, err, tc.says)
		}
	}
	o := parsed(t, "--controllers=*,hpaScaleTargetMarker,-execution", "--concurrent-work-syncs=10", "--skipped-propagating-apis=apps/v1/Deployment")
	if err := o.Validate(); err != nil {
		t.Fatalf("Karmada's other controllers and flags refused: %v", err)
	}
	if notRun := o.NotRun(); !slices.Contains(notRun, "hpaScaleTargetMarker") || slices.Contains(notRun, "execution") || slices.Contains(notRun, "deploymentReplicasSyncer") || slices.Contains(notRun, "binding") {
		t.Errorf("NotRun = %v: want the Karmada controllers enabled and not run here (hpaScaleTargetMarker, not execution, deploymentReplicasSyncer or binding)", notRun)
	}
	var ignored []string
	for _, f := range o.Ignored() {
		ignored = append(ignored, f.Name)
	}
	if !slices.Equal(ignored, []string{"concurrent-work-syncs", "skipped-propagating-apis"}) {
		t.Errorf("Ignored = %v", ignored)
	}
}

// -v and --logging-format set the logger as Karmada's do.
func TestLoggerFollowsKarmadasLoggingFlags(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(parsed(t, "--logging-format=json", "-v=4"), &buf)
	log.V(4).Info("shown")
	log.V(5).Info("hidden")
	out := buf.String()
	if !strings.Contains(out, `"msg":"shown"`) || strings.Contains(out, "hidden") {
		t.Errorf("json at -v=4 logged %q", out)
	}
	buf.Reset()
	log = NewLogger(parsed(t), &buf)
	log.Info("plain")
	log.V(1).Info("verbose")
	if out := buf.String(); !strings.Contains(out, "msg=plain") || strings.Contains(out, "verbose") {
		t.Errorf("text at -v=0 logged %q", out)
	}
}

// The command lines in the docs parse and validate as written.
func TestDocsCommandsParse(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs: %v, %v", docs, err)
	}
	command := regexp.MustCompile(`(?s)\./fleetover-controller-manager((?:[^\n]*\\\n)*[^\n]*)`)
	found := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range command.FindAllStringSubmatch(string(data), -1) {
			found++
			line := strings.ReplaceAll(m[1], "\\\n", " ")
			args, err := karmadaflags.Split(line)
			if err != nil {
				t.Errorf("%s: %q: %v", doc, line, err)
				continue
			}
			o := quiet()
			if err := o.Parse(args); err != nil {
				t.Errorf("%s: %q: %v", doc, line, err)
				continue
			}
			if err := o.Validate(); err != nil {
				t.Errorf("%s: %q: %v", doc, line, err)
			}
		}
	}
	if found == 0 {
		t.Error("no ./fleetover-controller-manager command in the docs")
	}
}
