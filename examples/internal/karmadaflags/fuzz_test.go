package karmadaflags

import (
	"flag"
	"io"
	"testing"
)

// FuzzParse holds the command-line reading to "an error or a value,
// never a panic": any arguments, parsed, validated and listed.
func FuzzParse(f *testing.F) {
	for _, line := range []string{
		"--feature-gates=AllAlpha=true,AllBeta=true --controllers=*,hpaScaleTargetMarker",
		"--enable-no-execute-taint-eviction --no-execute-taint-eviction-purge-mode=Immediately",
		"-v=4 --logging-format=json --resource-eviction-rate=0",
		`--controllers='-cluster,cluster' --skipped-propagating-namespaces="a b"`,
		"--cluster-lease-duration=40s",
		"--feature-gates=Failover",
	} {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args, err := Split(line)
		if err != nil {
			return
		}
		if Foreign(args) != nil {
			return
		}
		o := NewControllerManager()
		fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.AddFlags(fs)
		if fs.Parse(args) != nil {
			return
		}
		_ = o.Validate()
		_ = Ignored(fs)
		_ = o.FeatureGates.Effective()
		_, _ = ParseSelection(o.Controllers.String(), Controllers())
	})
}

// FuzzGates: any --feature-gates value either sets the gates or is refused
// without changing them.
func FuzzGates(f *testing.F) {
	for _, v := range []string{"AllAlpha=true", "Failover=true,GracefulEviction=false", "Failover", "=,=", "X=1"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		g := NewGates()
		before := g.Effective()
		if err := g.Set(v); err != nil && g.Effective() != before {
			t.Fatalf("Set(%q) failed (%v) and changed the gates", v, err)
		}
	})
}
