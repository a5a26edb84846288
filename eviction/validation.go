package eviction

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits taken from metav1.Condition, whose reason and message rules a task's
// reason and message follow.
const (
	// MaxReasonLength is the longest reason accepted, in bytes.
	MaxReasonLength = 1024
	// MaxMessageLength is the longest message accepted, in bytes.
	MaxMessageLength = 32768
)

// conditionReasonMessage explains the reason rule when a reason breaks it.
const conditionReasonMessage = "must be a CamelCase word: a letter, then letters, digits, '_', ',' or ':', " +
	"ending with a letter, digit or '_' (for example " + ReasonTaintUntolerated + ")"

// isConditionReason reports whether reason follows the rule the API server
// applies to metav1.Condition's reason: a letter first, then letters, digits,
// '_', ',' or ':', and a letter, digit or '_' last. The rule is kept here
// rather than called from apimachinery because apimachinery's validator
// for it exists only from v0.37 on, and the library supports v0.35.
func isConditionReason(reason string) bool {
	if reason == "" || !isASCIILetter(reason[0]) {
		return false
	}
	for i := 1; i < len(reason); i++ {
		c := reason[i]
		switch {
		case isASCIILetter(c), c >= '0' && c <= '9', c == '_':
		case (c == ',' || c == ':') && i < len(reason)-1:
		default:
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// supportedPurgeModes lists the values reported when a purge mode is not
// recognised; the legacy spellings are accepted but not advertised.
var supportedPurgeModes = []string{string(PurgeDirectly), string(PurgeGracefully), string(PurgeNever)}

// ValidateGracefulEvictionTask checks one task as an admission webhook would
// and returns every problem found, each naming its field under fldPath.
// A nil task is reported as a required value.
func ValidateGracefulEvictionTask(t *GracefulEvictionTask, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t == nil {
		return append(errs, field.Required(fldPath, "an eviction task is required"))
	}
	errs = append(errs, validateClusterName(t.FromCluster, fldPath.Child("fromCluster"), true)...)

	reasonPath := fldPath.Child("reason")
	switch {
	case t.Reason == "":
		errs = append(errs, field.Required(reasonPath, "a CamelCase reason such as "+ReasonTaintUntolerated+" is required"))
	case len(t.Reason) > MaxReasonLength:
		// The regular expression is not run on oversized input: the length
		// error is enough and keeps validation cheap on hostile input.
		errs = append(errs, field.TooLong(reasonPath, "", MaxReasonLength))
	default:
		if !isConditionReason(t.Reason) {
			errs = append(errs, field.Invalid(reasonPath, t.Reason, conditionReasonMessage))
		}
	}
	if len(t.Message) > MaxMessageLength {
		errs = append(errs, field.TooLong(fldPath.Child("message"), "", MaxMessageLength))
	}
	if t.Producer == "" {
		errs = append(errs, field.Required(fldPath.Child("producer"), "the controller that created the task must be named"))
	}
	if t.PurgeMode != "" && !t.PurgeMode.IsValid() {
		errs = append(errs, field.NotSupported(fldPath.Child("purgeMode"), t.PurgeMode, supportedPurgeModes))
	}
	if t.Replicas != nil && *t.Replicas < 0 {
		errs = append(errs, field.Invalid(fldPath.Child("replicas"), *t.Replicas, "must be greater than or equal to 0"))
	}
	if t.GracePeriodSeconds != nil {
		if *t.GracePeriodSeconds <= 0 {
			errs = append(errs, field.Invalid(fldPath.Child("gracePeriodSeconds"), *t.GracePeriodSeconds, "must be greater than 0"))
		}
		if t.SuppressDeletion != nil {
			errs = append(errs, field.Forbidden(fldPath.Child("suppressDeletion"), "may not be set together with gracePeriodSeconds"))
		}
	}
	errs = append(errs, validatePreservedLabelState(t.PreservedLabelState, fldPath.Child("preservedLabelState"))...)
	if t.FencingEpoch < 0 {
		errs = append(errs, field.Invalid(fldPath.Child("fencingEpoch"), t.FencingEpoch, "must be greater than or equal to 0"))
	}
	cbfPath := fldPath.Child("clustersBeforeFailover")
	for i, name := range t.ClustersBeforeFailover {
		errs = append(errs, validateClusterName(name, cbfPath.Index(i), true)...)
	}
	return errs
}

// ValidateGracefulEvictionTasks validates every task and rejects a second
// task for the same FromCluster: a workload leaves a cluster once at a time.
func ValidateGracefulEvictionTasks(tasks []GracefulEvictionTask, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]struct{}, len(tasks))
	for i := range tasks {
		p := fldPath.Index(i)
		errs = append(errs, ValidateGracefulEvictionTask(&tasks[i], p)...)
		from := tasks[i].FromCluster
		if from == "" {
			continue
		}
		if _, dup := seen[from]; dup {
			errs = append(errs, field.Duplicate(p.Child("fromCluster"), from))
			continue
		}
		seen[from] = struct{}{}
	}
	return errs
}

func validateClusterName(name string, fldPath *field.Path, required bool) field.ErrorList {
	if name == "" {
		if required {
			return field.ErrorList{field.Required(fldPath, "a cluster name is required")}
		}
		return nil
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	return errs
}

// validatePreservedLabelState checks keys as label keys and values as label
// values, in key order so the error list is stable.
func validatePreservedLabelState(state map[string]string, fldPath *field.Path) field.ErrorList {
	if len(state) == 0 {
		return nil
	}
	keys := make([]string, 0, len(state))
	for k := range state {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var errs field.ErrorList
	for _, k := range keys {
		p := fldPath.Key(k)
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(p, k, fmt.Sprintf("key: %s", msg)))
		}
		for _, msg := range validation.IsValidLabelValue(state[k]) {
			errs = append(errs, field.Invalid(p, state[k], msg))
		}
	}
	return errs
}
