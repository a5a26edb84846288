package scheduling

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRunFilters(t *testing.T) {
	t0 := time.Unix(1000, 0)
	rejectB := NamedFilter("NoB", func(_ *Workload, c *Cluster) Status {
		if c.Name == "b" {
			return Reject("b is out")
		}
		return Fit()
	})
	calls := 0
	counting := FilterFunc(func(_ *Workload, c *Cluster) Status {
		calls++
		switch c.Name {
		case "b":
			return Reject("counted b")
		case "c":
			return RejectUntil("c later", t0.Add(time.Minute))
		case "d":
			return RejectUntil("d sooner", t0.Add(time.Second))
		}
		return Fit()
	})
	fleet := []Cluster{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: ""}, {Name: "d"}, {Name: "e"}}
	res := RunFilters(nil, fleet, rejectB, nil, counting)
	want := Result{
		Feasible: []string{"a", "e"},
		Rejected: map[string]Rejection{
			"b": {Filter: "NoB", Reason: "b is out"},
			"c": {Filter: "FilterFunc", Reason: "c later", Until: t0.Add(time.Minute)},
			"":  {Filter: "Runner", Reason: "cluster has no name"},
			"d": {Filter: "FilterFunc", Reason: "d sooner", Until: t0.Add(time.Second)},
		},
		RetryAt: t0.Add(time.Second),
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if calls != 4 {
		t.Errorf("second filter ran %d times, want 4 (not after the first rejection of b, not for the nameless cluster)", calls)
	}
}

func TestRunFiltersNoRejection(t *testing.T) {
	res := RunFilters(&Workload{}, []Cluster{{Name: "a"}})
	if res.Rejected != nil || len(res.Feasible) != 1 || !res.RetryAt.IsZero() {
		t.Errorf("%+v", res)
	}
}

func TestRunFiltersIntoReuses(t *testing.T) {
	onlyA := FilterFunc(func(_ *Workload, c *Cluster) Status {
		if c.Name != "a" {
			return RejectUntil("not a", time.Unix(5, 0))
		}
		return Fit()
	})
	var res Result
	RunFiltersInto(&res, nil, []Cluster{{Name: "a"}, {Name: "b"}, {Name: "c"}}, onlyA)
	if len(res.Rejected) != 2 || res.RetryAt.IsZero() {
		t.Fatalf("first run: %+v", res)
	}
	RunFiltersInto(&res, nil, []Cluster{{Name: "a"}})
	if len(res.Feasible) != 1 || len(res.Rejected) != 0 || !res.RetryAt.IsZero() {
		t.Fatalf("second run kept stale state: %+v", res)
	}
}

// TestRunFiltersConcurrent shares the built-in filters and one workload
// between goroutines; run with -race.
func TestRunFiltersConcurrent(t *testing.T) {
	fleet := benchFleet(200)
	w := benchWorkload(fleet, time.Unix(1_000_000, 0))
	filters := DefaultFilters()
	want := RunFilters(w, fleet, filters...)
	done := make(chan Result)
	for range 4 {
		go func() { done <- RunFilters(w, fleet, filters...) }()
	}
	for range 4 {
		if got := <-done; !cmp.Equal(want, got) {
			t.Fatal("concurrent runs disagree")
		}
	}
}
