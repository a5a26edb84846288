package eviction

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
)

func baseEviction(cluster string) Eviction {
	return Eviction{
		Cluster:   cluster,
		Producer:  ProducerTaintManager,
		Reason:    ReasonTaintUntolerated,
		Message:   "not ready",
		PurgeMode: LegacyPurgeGraciously,
	}
}

func TestEvictAddsTaskAndRemovesTarget(t *testing.T) {
	targets := []TargetCluster{{Name: "m1", Replicas: 2}, {Name: "m2", Replicas: 3}}
	targetsBefore := append([]TargetCluster(nil), targets...)
	ev := baseEviction("m1")
	ev.GracePeriodSeconds = ptr.To[int32](60)
	ev.PreservedLabelState = map[string]string{"job": "a"}

	res, err := Evict(targets, nil, ev)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != EvictTaskAdded || !res.Changed() {
		t.Fatalf("outcome %s changed %v", res.Outcome, res.Changed())
	}
	if diff := cmp.Diff([]TargetCluster{{Name: "m2", Replicas: 3}}, res.Targets); diff != "" {
		t.Fatalf("targets (-want +got):\n%s", diff)
	}
	want := GracefulEvictionTask{
		FromCluster:            "m1",
		PurgeMode:              PurgeGracefully, // legacy name normalised
		Replicas:               ptr.To[int32](2),
		Reason:                 ReasonTaintUntolerated,
		Message:                "not ready",
		Producer:               ProducerTaintManager,
		GracePeriodSeconds:     ptr.To[int32](60),
		PreservedLabelState:    map[string]string{"job": "a"},
		ClustersBeforeFailover: []string{"m1", "m2"}, // defaulted from the targets before removal
	}
	if diff := cmp.Diff([]GracefulEvictionTask{want}, res.Tasks); diff != "" {
		t.Fatalf("tasks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(targetsBefore, targets); diff != "" {
		t.Fatalf("input targets modified:\n%s", diff)
	}
	// The task owns its copies: changing the eviction afterwards does not leak in.
	ev.PreservedLabelState["job"] = "changed"
	*ev.GracePeriodSeconds = 1
	if res.Tasks[0].PreservedLabelState["job"] != "a" || *res.Tasks[0].GracePeriodSeconds != 60 {
		t.Fatal("task shares memory with the eviction")
	}
}

func TestEvictSecondTimeAddsNoTask(t *testing.T) {
	targets := []TargetCluster{{Name: "m1"}, {Name: "m2"}}
	first, err := Evict(targets, nil, baseEviction("m1"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := Evict(first.Targets, first.Tasks, baseEviction("m1"))
	if err != nil {
		t.Fatal(err)
	}
	if second.Outcome != EvictAlreadyInProgress || second.Changed() || len(second.Tasks) != 1 {
		t.Fatalf("outcome %s changed %v tasks %d", second.Outcome, second.Changed(), len(second.Tasks))
	}
	// The cluster came back as a target and is evicted again: it leaves
	// the targets, still with one task.
	back := append(second.Targets, TargetCluster{Name: "m1"})
	third, err := Evict(back, second.Tasks, baseEviction("m1"))
	if err != nil {
		t.Fatal(err)
	}
	if third.Outcome != EvictAlreadyInProgress || !third.Changed() || len(third.Tasks) != 1 || len(third.Targets) != 1 {
		t.Fatalf("outcome %s changed %v tasks %d targets %v", third.Outcome, third.Changed(), len(third.Tasks), third.Targets)
	}
}

func TestEvictChainedFailoverKeepsOriginalState(t *testing.T) {
	ev := baseEviction("m1")
	ev.PreservedLabelState = map[string]string{"job": "original", "checkpoint": "c1"}
	first, err := Evict([]TargetCluster{{Name: "m1"}}, nil, ev)
	if err != nil {
		t.Fatal(err)
	}
	originalState := first.Tasks[0].PreservedLabelState

	again := baseEviction("m1")
	again.PreservedLabelState = map[string]string{"job": "newer", "epoch": "7"}
	res, err := Evict(first.Targets, first.Tasks, again)
	if err != nil {
		t.Fatal(err)
	}
	if !res.StateMerged || !res.Changed() {
		t.Fatal("expected a merge")
	}
	want := map[string]string{"job": "original", "checkpoint": "c1", "epoch": "7"}
	if diff := cmp.Diff(want, res.Tasks[0].PreservedLabelState); diff != "" {
		t.Fatalf("merged state (-want +got):\n%s", diff)
	}
	if _, leaked := originalState["epoch"]; leaked {
		t.Fatal("merge modified the input task's map")
	}

	// Nothing new: no change reported.
	res2, err := Evict(res.Targets, res.Tasks, again)
	if err != nil || res2.StateMerged || res2.Changed() {
		t.Fatalf("err %v merged %v", err, res2.StateMerged)
	}
}

func TestEvictNotPlaced(t *testing.T) {
	targets := []TargetCluster{{Name: "m2"}}
	res, err := Evict(targets, nil, baseEviction("m1"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != EvictNotPlaced || res.Changed() || len(res.Tasks) != 0 || len(res.Targets) != 1 {
		t.Fatalf("%+v", res)
	}
}

func TestEvictExplicitClustersBeforeFailoverAndStamp(t *testing.T) {
	ev := baseEviction("m3")
	ev.ClustersBeforeFailover = []string{"m1"}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ev.CreatedAt = at
	res, err := Evict([]TargetCluster{{Name: "m3"}}, nil, ev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"m1"}, res.Tasks[0].ClustersBeforeFailover); diff != "" {
		t.Fatal(diff)
	}
	if res.Tasks[0].CreationTimestamp == nil || !res.Tasks[0].CreationTimestamp.Time.Equal(at) {
		t.Fatalf("stamp %v", res.Tasks[0].CreationTimestamp)
	}
	if res.Tasks[0].Replicas != nil {
		t.Fatal("replicas set for a target without replicas")
	}
}

func TestEvictInvalid(t *testing.T) {
	ev := baseEviction("m1")
	ev.Reason = "not camel case"
	ev.GracePeriodSeconds = ptr.To[int32](0)
	_, err := Evict([]TargetCluster{{Name: "m1"}}, nil, ev)
	if !errors.Is(err, ErrInvalidEviction) {
		t.Fatalf("err %v", err)
	}
	var ie *InvalidEvictionError
	if !errors.As(err, &ie) || len(ie.Errs) != 2 {
		t.Fatalf("err %#v", err)
	}
	if ie.Errs[0].Field != "eviction.reason" || ie.Errs[1].Field != "eviction.gracePeriodSeconds" {
		t.Fatalf("fields %q %q", ie.Errs[0].Field, ie.Errs[1].Field)
	}
}

func TestEvictReportsEvictedAndChains(t *testing.T) {
	targets := []TargetCluster{{Name: "a", Replicas: 1}, {Name: "b", Replicas: 2}, {Name: "c", Replicas: 3}}
	ev := func(c string) Eviction {
		return Eviction{Cluster: c, Producer: ProducerApplicationFailover, Reason: ReasonApplicationFailure}
	}
	res, err := Evict(targets, nil, ev("b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evicted) != 1 || res.Evicted[0] != (TargetCluster{Name: "b", Replicas: 2}) || !res.Changed() {
		t.Fatalf("first eviction: evicted %v changed %v", res.Evicted, res.Changed())
	}
	res, err = res.Then(ev("c"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Targets) != 1 || res.Targets[0].Name != "a" {
		t.Fatalf("targets %v", res.Targets)
	}
	if len(res.Evicted) != 2 || res.Evicted[0].Name != "b" || res.Evicted[1].Name != "c" || res.Evicted[1].Replicas != 3 {
		t.Fatalf("evicted %v", res.Evicted)
	}
	// Both tasks of the round name the placement before the first eviction.
	for _, task := range res.Tasks {
		if got := strings.Join(task.ClustersBeforeFailover, ","); got != "a,b,c" {
			t.Fatalf("task %s: clustersBeforeFailover %s", task.FromCluster, got)
		}
	}
	// A cluster that is not placed adds nothing and keeps what came before.
	res, err = res.Then(ev("z"))
	if err != nil || res.Outcome != EvictNotPlaced || len(res.Evicted) != 2 || !res.Changed() {
		t.Fatalf("outcome %v evicted %v changed %v err %v", res.Outcome, res.Evicted, res.Changed(), err)
	}
	// Nothing placed, nothing changed, nothing evicted.
	none, err := Evict(nil, nil, ev("z"))
	if err != nil || none.Changed() || len(none.Evicted) != 0 {
		t.Fatalf("empty: %+v %v", none, err)
	}
}
