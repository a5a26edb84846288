package karmadaflags

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, args ...string) (*ControllerManager, *flag.FlagSet) {
	t.Helper()
	o := NewControllerManager()
	fs := flag.NewFlagSet("karmada-controller-manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return o, fs
}

func TestDefaultsAreKarmadas(t *testing.T) {
	o, _ := parse(t)
	for name, got := range map[string]any{
		"controllers":                      o.Controllers.String(),
		"cluster-status-update-frequency":  o.ClusterStatusUpdateFrequency,
		"cluster-monitor-period":           o.ClusterMonitorPeriod,
		"cluster-monitor-grace-period":     o.ClusterMonitorGracePeriod,
		"cluster-startup-grace-period":     o.ClusterStartupGracePeriod,
		"cluster-success-threshold":        o.ClusterSuccessThreshold,
		"enable-taint-manager":             o.EnableTaintManager,
		"enable-no-execute-taint-eviction": o.EnableNoExecuteTaintEviction,
		"purge mode":                       o.NoExecuteTaintEvictionPurgeMode,
		"resource-eviction-rate":           o.ResourceEvictionRate,
		"graceful-eviction-timeout":        o.GracefulEvictionTimeout,
		"kube-api-qps":                     o.KubeAPIQPS,
		"logging-format":                   o.LoggingFormat,
		"Failover":                         o.FeatureGates.Enabled(GateFailover),
		"GracefulEviction":                 o.FeatureGates.Enabled(GateGracefulEviction),
		"StatefulFailoverInjection":        o.FeatureGates.Enabled(GateStatefulFailoverInjection),
	} {
		want := map[string]any{
			"controllers": "*", "cluster-status-update-frequency": 10 * time.Second, "cluster-monitor-period": 5 * time.Second,
			"cluster-monitor-grace-period": 40 * time.Second, "cluster-startup-grace-period": time.Minute,
			"cluster-success-threshold": 30 * time.Second, "enable-taint-manager": true, "enable-no-execute-taint-eviction": false,
			"purge mode": "Gracefully", "resource-eviction-rate": 0.5, "graceful-eviction-timeout": 10 * time.Minute,
			"kube-api-qps": 40.0, "logging-format": "text", "Failover": false, "GracefulEviction": true,
			"StatefulFailoverInjection": false,
		}[name]
		if got != want {
			t.Errorf("%s = %v, want Karmada's default %v", name, got, want)
		}
	}
	if errs := o.Validate(); len(errs) > 0 {
		t.Errorf("the defaults do not validate: %v", errs)
	}
}

func TestGatesAllAlphaAllBeta(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  map[string]bool
	}{
		{"AllAlpha=true,AllBeta=true", map[string]bool{GateFailover: true, GateStatefulFailoverInjection: true, GateGracefulEviction: true}},
		{"AllBeta=true", map[string]bool{GateFailover: true, GateStatefulFailoverInjection: false}},
		{"AllAlpha=true", map[string]bool{GateFailover: false, GateStatefulFailoverInjection: true}},
		// A gate set by name wins over its stage's switch, before or after it.
		{"Failover=false,AllBeta=true", map[string]bool{GateFailover: false, GateGracefulEviction: true}},
		{"AllBeta=false,GracefulEviction=true", map[string]bool{GateFailover: false, GateGracefulEviction: true}},
		{"AllBeta=false", map[string]bool{GateGracefulEviction: false, "ControllerPriorityQueue": false}},
		{" Failover = true , ", map[string]bool{GateFailover: true}},
	} {
		o, _ := parse(t, "--feature-gates="+tc.value)
		for gate, want := range tc.want {
			if got := o.FeatureGates.Enabled(gate); got != want {
				t.Errorf("--feature-gates=%s: %s = %t, want %t", tc.value, gate, got, want)
			}
		}
	}
}

func TestGatesRefuseWithoutChangingAnything(t *testing.T) {
	for _, tc := range []struct{ value, says string }{
		{"Failover=true,NoSuchGate=true", "unrecognized feature gate: NoSuchGate"},
		{"Failover=yes-please", "invalid value of Failover"},
		{"Failover", "missing bool value for Failover"},
	} {
		g := NewGates()
		err := g.Set(tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Set(%q) = %v, want an error saying %q", tc.value, err, tc.says)
		}
		if g.Enabled(GateFailover) || g.String() != "" {
			t.Errorf("Set(%q) failed but changed the gates: %s", tc.value, g.String())
		}
	}
	if NewGates().Enabled("NoSuchGate") {
		t.Error("an unknown gate reads as on")
	}
}

func TestGatesAddUpAcrossFlags(t *testing.T) {
	o, _ := parse(t, "--feature-gates=Failover=true", "--feature-gates=StatefulFailoverInjection=true", "--feature-gates=Failover=false")
	if o.FeatureGates.Enabled(GateFailover) || !o.FeatureGates.Enabled(GateStatefulFailoverInjection) {
		t.Errorf("gates %s: want the later Failover=false and the earlier StatefulFailoverInjection=true", o.FeatureGates.Effective())
	}
	if got, want := o.FeatureGates.String(), "Failover=false,StatefulFailoverInjection=true"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestSelectionFollowsKarmadasRules(t *testing.T) {
	known := Controllers()
	for _, tc := range []struct {
		value string
		name  string
		on    bool // on by default
		want  bool
	}{
		{"*", "cluster", true, true},
		{"*", "hpaScaleTargetMarker", false, false},
		{"*,hpaScaleTargetMarker", "hpaScaleTargetMarker", false, true},
		{"*,-gracefulEviction", "gracefulEviction", true, false},
		// The first item naming a controller wins.
		{"-cluster,cluster", "cluster", true, false},
		{"cluster,-cluster", "cluster", true, true},
		{"gracefulEviction", "cluster", true, false},
		{"", "cluster", true, false},
	} {
		s, err := ParseSelection(tc.value, known)
		if err != nil {
			t.Fatalf("ParseSelection(%q): %v", tc.value, err)
		}
		if got := s.Enabled(tc.name, tc.on); got != tc.want {
			t.Errorf("--controllers=%s: %s enabled = %t, want %t", tc.value, tc.name, got, tc.want)
		}
	}
	if _, err := ParseSelection("*,-clusterHealth,nope", known); err == nil || !strings.Contains(err.Error(), "-clusterHealth, nope") {
		t.Errorf("unknown names: %v, want an error naming -clusterHealth and nope", err)
	}
}

func TestControllersFlagReplacesTheDefaultThenAppends(t *testing.T) {
	o, _ := parse(t, "--controllers=cluster", "--controllers=-binding,gracefulEviction")
	if got, want := o.Controllers.String(), "cluster,-binding,gracefulEviction"; got != want {
		t.Errorf("controllers = %q, want %q (the default * replaced by the first use)", got, want)
	}
	if got, want := o.Controllers.Named(), []string{"cluster", "binding", "gracefulEviction"}; !slices.Equal(got, want) {
		t.Errorf("Named() = %v, want %v", got, want)
	}
}

func TestValidateFollowsKarmada(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string // "" when valid
	}{
		{nil, ""},
		// The purge mode is checked only with NoExecute eviction on, and
		// only Karmada's two spellings pass.
		{[]string{"--no-execute-taint-eviction-purge-mode=Immediately"}, ""},
		{[]string{"--enable-no-execute-taint-eviction", "--no-execute-taint-eviction-purge-mode=Immediately"}, "--no-execute-taint-eviction-purge-mode"},
		{[]string{"--enable-no-execute-taint-eviction", "--no-execute-taint-eviction-purge-mode=directly"}, "--no-execute-taint-eviction-purge-mode"},
		{[]string{"--enable-no-execute-taint-eviction", "--no-execute-taint-eviction-purge-mode=Directly"}, ""},
		{[]string{"--resource-eviction-rate=0"}, ""},
		{[]string{"--resource-eviction-rate=-1"}, "--resource-eviction-rate"},
		{[]string{"--cluster-monitor-period=0s"}, "--cluster-monitor-period"},
		{[]string{"--cluster-status-update-frequency=-1s"}, "--cluster-status-update-frequency"},
		{[]string{"--logging-format=xml"}, "--logging-format"},
		{[]string{"-v=-1"}, "--v"},
	} {
		o, _ := parse(t, tc.args...)
		errs := o.Validate()
		switch {
		case tc.says == "" && len(errs) > 0:
			t.Errorf("%q: %v, want valid", tc.args, errs)
		case tc.says != "" && (len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), tc.says)):
			t.Errorf("%q: %v, want an error naming %s", tc.args, errs, tc.says)
		}
	}
}

func TestIgnoredNamesTheOwner(t *testing.T) {
	_, fs := parse(t, "--concurrent-work-syncs=9", "--cluster-monitor-period=7s", "--horizontal-pod-autoscaler-tolerance=0.2",
		"--logtostderr=false", "--skipped-propagating-namespaces=kube-.*,team-.*")
	got := Ignored(fs)
	var names []string
	for _, f := range got {
		names = append(names, f.Name+"="+f.Value)
		if f.Owner == "" {
			t.Errorf("%s: no owner", f.Name)
		}
	}
	want := []string{"concurrent-work-syncs=9", "horizontal-pod-autoscaler-tolerance=0.2", "logtostderr=false", "skipped-propagating-namespaces=kube-.*,team-.*"}
	if !slices.Equal(names, want) {
		t.Errorf("Ignored = %v, want %v (cluster-monitor-period is used)", names, want)
	}
}

func TestEveryFlagIsUsedOrIgnored(t *testing.T) {
	_, fs := parse(t)
	fs.VisitAll(func(f *flag.Flag) {
		_, ignored := ignoredOwner(f.Name)
		if Used(f.Name) == ignored {
			t.Errorf("--%s: used=%t ignored=%t, want exactly one", f.Name, Used(f.Name), ignored)
		}
		if _, foreign := foreignOwner(f.Name); foreign {
			t.Errorf("--%s is registered and also listed as another component's", f.Name)
		}
	})
}

func TestForeignNamesTheComponent(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--feature-gates=Failover=true", "--cluster-lease-duration=40s"}, "karmada-agent"},
		{[]string{"--plugins=*"}, "karmada-scheduler"},
		{[]string{"-secure-port", "443"}, "karmada-webhook"},
		{[]string{"--", "--plugins=*"}, ""},
		{[]string{"--cluster-monitor-period=5s"}, ""},
	} {
		err := Foreign(tc.args)
		if tc.says == "" && err != nil || tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)) {
			t.Errorf("Foreign(%q) = %v, want %q", tc.args, err, tc.says)
		}
	}
}

func TestSplitAsAShellWould(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"", nil},
		{"  --a=1   --b  ", []string{"--a=1", "--b"}},
		{`--controllers='*,-binding' --x="a b"`, []string{"--controllers=*,-binding", "--x=a b"}},
		{`--x="say \"hi\" \n"`, []string{`--x=say "hi" \n`}},
		{`a\ b ''`, []string{"a b", ""}},
	} {
		got, err := Split(tc.line)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
	if _, err := Split(`--x='open`); err == nil {
		t.Error("an unterminated quote is accepted")
	}
}
