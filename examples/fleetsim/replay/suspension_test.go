package replay

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/suspension"
)

func TestChangeSuspension(t *testing.T) {
	on := func(names ...string) *suspension.Suspension {
		return &suspension.Suspension{DispatchingOnClusters: &suspension.SuspendClusters{ClusterNames: names}}
	}
	all := &suspension.Suspension{Dispatching: ptr.To(true)}
	cases := map[string]struct {
		in      *suspension.Suspension
		cluster string
		suspend bool
		want    *suspension.Suspension
	}{
		"first cluster":             {nil, "a", true, on("a")},
		"second cluster":            {on("a"), "b", true, on("a", "b")},
		"a cluster twice":           {on("a"), "a", true, on("a")},
		"every cluster":             {on("a"), "", true, all},
		"one cluster under all":     {all, "a", true, all},
		"resume one":                {on("a", "b"), "a", false, on("b")},
		"resume every cluster":      {on("a"), "", false, nil},
		"resume one of all":         {all, "a", false, all},
		"resume what never stopped": {nil, "a", false, &suspension.Suspension{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := tc.in.DeepCopy()
			got := ChangeSuspension(tc.in, tc.cluster, tc.suspend)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.in); diff != "" {
				t.Errorf("the input changed (-before +after):\n%s", diff)
			}
			if errs := suspension.ValidateSuspension(got, nil); len(errs) > 0 {
				t.Errorf("invalid result: %v", errs)
			}
		})
	}
}
