package app

import (
	"strings"
	"testing"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// ParseTarget never panics, accepts only what it can print back, and
// picks the kind by the slash alone.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"default/web", "web", "", "/", "a/", "/b", "a/b/c", "Default/web", "ns/web.v1", "ns/-web", strings.Repeat("a", 254)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		kind, key, err := ParseTarget(arg)
		if err != nil {
			if !strings.Contains(err.Error(), "binding ") {
				t.Fatalf("ParseTarget(%q): error %q does not name the argument", arg, err)
			}
			return
		}
		back := key.Name
		if kind == controllers.ResourceBindingKind {
			back = key.Namespace + "/" + key.Name
		} else if kind != controllers.ClusterResourceBindingKind || key.Namespace != "" {
			t.Fatalf("ParseTarget(%q) = %s %v", arg, kind, key)
		}
		if back != arg {
			t.Fatalf("ParseTarget(%q) = %s %v, which prints back as %q", arg, kind, key, back)
		}
	})
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		kind controllers.BindingKind
		ns   string
		name string
		err  string
	}{
		{arg: "default/web", kind: controllers.ResourceBindingKind, ns: "default", name: "web"},
		{arg: "reader.v1", kind: controllers.ClusterResourceBindingKind, name: "reader.v1"},
		{arg: "a/b/c", err: "want NAMESPACE/NAME"},
		{arg: "Default/web", err: "namespace: Invalid value"},
		{arg: "default/Web", err: "name: Invalid value"},
		{arg: "", err: "want NAMESPACE/NAME"},
	} {
		kind, key, err := ParseTarget(tc.arg)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseTarget(%q): error %v, want one saying %q", tc.arg, err, tc.err)
			}
			continue
		}
		if err != nil || kind != tc.kind || key.Namespace != tc.ns || key.Name != tc.name {
			t.Errorf("ParseTarget(%q) = %s %v, %v; want %s %s/%s", tc.arg, kind, key, err, tc.kind, tc.ns, tc.name)
		}
	}
}
