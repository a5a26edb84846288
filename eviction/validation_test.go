package eviction

import (
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func validTask() GracefulEvictionTask {
	return GracefulEvictionTask{
		FromCluster: "member1",
		PurgeMode:   PurgeGracefully,
		Reason:      ReasonTaintUntolerated,
		Producer:    ProducerTaintManager,
	}
}

func TestValidateGracefulEvictionTask(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*GracefulEvictionTask)
		// want lists "type field" pairs, e.g. "FieldValueRequired task.fromCluster".
		want []string
	}{
		{name: "valid", mutate: func(*GracefulEvictionTask) {}},
		{name: "legacy purge mode accepted", mutate: func(t *GracefulEvictionTask) { t.PurgeMode = LegacyPurgeGraciously }},
		{name: "empty purge mode accepted", mutate: func(t *GracefulEvictionTask) { t.PurgeMode = "" }},
		{name: "full valid task", mutate: func(t *GracefulEvictionTask) {
			t.GracePeriodSeconds = ptr.To[int32](30)
			t.Replicas = ptr.To[int32](2)
			t.Message = "cluster member1 is not ready"
			t.PreservedLabelState = map[string]string{"failover.fleetover.io/job-id": "abc-123"}
			t.ClustersBeforeFailover = []string{"member1", "member2"}
		}},
		{name: "missing fromCluster", mutate: func(t *GracefulEvictionTask) { t.FromCluster = "" },
			want: []string{"FieldValueRequired task.fromCluster"}},
		{name: "bad fromCluster", mutate: func(t *GracefulEvictionTask) { t.FromCluster = "Member_1" },
			want: []string{"FieldValueInvalid task.fromCluster"}},
		{name: "missing reason", mutate: func(t *GracefulEvictionTask) { t.Reason = "" },
			want: []string{"FieldValueRequired task.reason"}},
		{name: "reason not CamelCase", mutate: func(t *GracefulEvictionTask) { t.Reason = "taint untolerated" },
			want: []string{"FieldValueInvalid task.reason"}},
		{name: "reason ends with colon", mutate: func(t *GracefulEvictionTask) { t.Reason = "Taint:" },
			want: []string{"FieldValueInvalid task.reason"}},
		{name: "reason too long", mutate: func(t *GracefulEvictionTask) { t.Reason = strings.Repeat("A", MaxReasonLength+1) },
			want: []string{"FieldValueTooLong task.reason"}},
		{name: "reason at limit", mutate: func(t *GracefulEvictionTask) { t.Reason = strings.Repeat("A", MaxReasonLength) }},
		{name: "message too long", mutate: func(t *GracefulEvictionTask) { t.Message = strings.Repeat("m", MaxMessageLength+1) },
			want: []string{"FieldValueTooLong task.message"}},
		{name: "missing producer", mutate: func(t *GracefulEvictionTask) { t.Producer = "" },
			want: []string{"FieldValueRequired task.producer"}},
		{name: "unknown purge mode", mutate: func(t *GracefulEvictionTask) { t.PurgeMode = "Sometimes" },
			want: []string{"FieldValueNotSupported task.purgeMode"}},
		{name: "zero grace period", mutate: func(t *GracefulEvictionTask) { t.GracePeriodSeconds = ptr.To[int32](0) },
			want: []string{"FieldValueInvalid task.gracePeriodSeconds"}},
		{name: "negative grace period", mutate: func(t *GracefulEvictionTask) { t.GracePeriodSeconds = ptr.To[int32](-5) },
			want: []string{"FieldValueInvalid task.gracePeriodSeconds"}},
		{name: "grace period with suppressDeletion", mutate: func(t *GracefulEvictionTask) {
			t.GracePeriodSeconds = ptr.To[int32](5)
			t.SuppressDeletion = ptr.To(true)
		}, want: []string{"FieldValueForbidden task.suppressDeletion"}},
		{name: "negative replicas", mutate: func(t *GracefulEvictionTask) { t.Replicas = ptr.To[int32](-1) },
			want: []string{"FieldValueInvalid task.replicas"}},
		{name: "bad preserved key and value", mutate: func(t *GracefulEvictionTask) {
			t.PreservedLabelState = map[string]string{"bad key": "ok", "good": strings.Repeat("v", 64)}
		}, want: []string{"FieldValueInvalid task.preservedLabelState[bad key]", "FieldValueInvalid task.preservedLabelState[good]"}},
		{name: "bad clustersBeforeFailover entry", mutate: func(t *GracefulEvictionTask) { t.ClustersBeforeFailover = []string{"ok", ""} },
			want: []string{"FieldValueRequired task.clustersBeforeFailover[1]"}},
		{name: "several problems at once", mutate: func(t *GracefulEvictionTask) { t.FromCluster, t.Producer = "", "" },
			want: []string{"FieldValueRequired task.fromCluster", "FieldValueRequired task.producer"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := validTask()
			tc.mutate(&task)
			got := describe(ValidateGracefulEvictionTask(&task, field.NewPath("task")))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("errors:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestValidateGracefulEvictionTaskNil(t *testing.T) {
	got := describe(ValidateGracefulEvictionTask(nil, field.NewPath("task")))
	if len(got) != 1 || got[0] != "FieldValueRequired task" {
		t.Fatalf("got %q", got)
	}
}

func TestValidateGracefulEvictionTasksDuplicate(t *testing.T) {
	a, b, c := validTask(), validTask(), validTask()
	c.FromCluster = "member2"
	got := describe(ValidateGracefulEvictionTasks([]GracefulEvictionTask{a, c, b}, field.NewPath("spec", "gracefulEvictionTasks")))
	want := []string{"FieldValueDuplicate spec.gracefulEvictionTasks[2].fromCluster"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestValidateEvictionHistory(t *testing.T) {
	at := metav1.NewTime(t0)
	h := EvictionHistory{{ClusterName: "a", CreationTimestamp: at}, {ClusterName: "a", CreationTimestamp: at}, {ClusterName: "", CreationTimestamp: at}, {ClusterName: "B!", CreationTimestamp: at}}
	got := describe(ValidateEvictionHistory(h, field.NewPath("history")))
	want := []string{
		"FieldValueDuplicate history[1].clusterName",
		"FieldValueRequired history[2].clusterName",
		"FieldValueInvalid history[3].clusterName",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q want %q", got, want)
	}
}

func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func TestConditionReasonRule(t *testing.T) {
	cases := map[string]bool{
		"TaintUntolerated": true,
		"A":                true,
		"a":                true,
		"Reason_":          true,
		"ReasonA,ReasonB":  true,
		"ReasonA:ReasonB":  true,
		"Reason9":          true,
		"MY_NAME":          true,
		"":                 false,
		"9Reason":          false,
		"_Reason":          false,
		"Reason,":          false,
		"Reason:":          false,
		"Re-ason":          false,
		"Re ason":          false,
		"Reasón":           false,
		"Reason.":          false,
	}
	for reason, want := range cases {
		if got := isConditionReason(reason); got != want {
			t.Errorf("isConditionReason(%q) = %v, want %v", reason, got, want)
		}
	}
}

// FuzzConditionReasonRule checks the byte scan against the pattern the API
// server documents for a condition reason.
func FuzzConditionReasonRule(f *testing.F) {
	for _, s := range []string{"TaintUntolerated", "A,B", "A:", "_", "a1_", "Ñ", ""} {
		f.Add(s)
	}
	pattern := regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)
	f.Fuzz(func(t *testing.T, reason string) {
		if got, want := isConditionReason(reason), pattern.MatchString(reason); got != want {
			t.Fatalf("isConditionReason(%q) = %v, pattern says %v", reason, got, want)
		}
	})
}
