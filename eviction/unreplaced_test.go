package eviction_test

import (
	"slices"
	"testing"

	"github.com/fleetover/fleetover/eviction"
)

func TestUnreplaced(t *testing.T) {
	task := func(from string, before ...string) eviction.GracefulEvictionTask {
		return eviction.GracefulEvictionTask{FromCluster: from, ClustersBeforeFailover: before}
	}
	cases := []struct {
		name    string
		targets []string
		tasks   []eviction.GracefulEvictionTask
		want    []string
	}{
		{"replaced", []string{"a", "c"}, []eviction.GracefulEvictionTask{task("b", "a", "b")}, nil},
		{"short by one", []string{"a"}, []eviction.GracefulEvictionTask{task("b", "a", "b")}, []string{"b"}},
		{"newest first", nil, []eviction.GracefulEvictionTask{task("a", "a"), task("b", "b")}, []string{"b"}},
		{"no tasks", []string{"a"}, nil, nil},
	}
	for _, tc := range cases {
		if got := eviction.Unreplaced(tc.targets, tc.tasks); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The clusters Unreplaced names, with the replicas the scheduler places
// again: those of the newest task of the cluster that recorded any, or the
// caller's default.
func TestUnreplacedTargets(t *testing.T) {
	task := func(from string, replicas *int32, before ...string) eviction.GracefulEvictionTask {
		return eviction.GracefulEvictionTask{FromCluster: from, Replicas: replicas, ClustersBeforeFailover: before}
	}
	two, three := int32(2), int32(3)
	cases := []struct {
		name    string
		targets []eviction.TargetCluster
		tasks   []eviction.GracefulEvictionTask
		want    []eviction.TargetCluster
	}{
		{"replaced", []eviction.TargetCluster{{Name: "a", Replicas: 1}, {Name: "c", Replicas: 2}},
			[]eviction.GracefulEvictionTask{task("b", &two, "a", "b")}, nil},
		{"the task's replicas", []eviction.TargetCluster{{Name: "a", Replicas: 1}},
			[]eviction.GracefulEvictionTask{task("b", &two, "a", "b")}, []eviction.TargetCluster{{Name: "b", Replicas: 2}}},
		{"no replicas recorded", []eviction.TargetCluster{{Name: "a"}},
			[]eviction.GracefulEvictionTask{task("b", nil, "a", "b")}, []eviction.TargetCluster{{Name: "b", Replicas: 5}}},
		{"the newest task that recorded them", nil,
			[]eviction.GracefulEvictionTask{task("a", &two, "a"), task("a", &three, "a"), task("a", nil, "a")},
			[]eviction.TargetCluster{{Name: "a", Replicas: 3}}},
	}
	for _, tc := range cases {
		got := eviction.UnreplacedTargets(tc.targets, tc.tasks, 5)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
