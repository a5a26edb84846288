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
