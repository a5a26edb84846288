package health

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// BuiltinInterpreters returns the interpreters this package ships, keyed by
// GroupKind so that they serve every version of a kind. Each call returns a
// new map the caller may change. NewRegistry registers them unless told not
// to.
//
// Every rule reads the unstructured map directly; none converts to a typed
// object. Shared rules:
//   - An object without a status is Unknown: nothing has observed it yet.
//   - Where the kind's status has observedGeneration, a value different from
//     metadata.generation is Unknown: the status describes an older spec, so
//     it says nothing about the current one. For Pod and FlinkDeployment the
//     field only exists with newer clusters and operators, so it is checked
//     when present.
//   - A field of the wrong type is an error wrapping ErrMalformedObject (a
//     Registry makes it Unknown).
func BuiltinInterpreters() map[schema.GroupKind]Interpreter {
	return map[schema.GroupKind]Interpreter{
		{Group: "apps", Kind: "Deployment"}:                  InterpreterFunc(DeploymentHealth),
		{Group: "apps", Kind: "StatefulSet"}:                 InterpreterFunc(StatefulSetHealth),
		{Group: "apps", Kind: "ReplicaSet"}:                  InterpreterFunc(ReplicaSetHealth),
		{Group: "apps", Kind: "DaemonSet"}:                   InterpreterFunc(DaemonSetHealth),
		{Group: "batch", Kind: "Job"}:                        InterpreterFunc(JobHealth),
		{Group: "", Kind: "Pod"}:                             InterpreterFunc(PodHealth),
		{Group: "", Kind: "Service"}:                         InterpreterFunc(ServiceHealth),
		{Group: "", Kind: "PersistentVolumeClaim"}:           InterpreterFunc(PersistentVolumeClaimHealth),
		{Group: "networking.k8s.io", Kind: "Ingress"}:        InterpreterFunc(IngressHealth),
		{Group: "extensions", Kind: "Ingress"}:               InterpreterFunc(IngressHealth),
		{Group: "policy", Kind: "PodDisruptionBudget"}:       InterpreterFunc(PodDisruptionBudgetHealth),
		{Group: "flink.apache.org", Kind: "FlinkDeployment"}: InterpreterFunc(FlinkDeploymentHealth),
	}
}

var healthy = Result{Status: Healthy, Reason: ReasonHealthy}

func unhealthy(reason string) Result { return Result{Status: Unhealthy, Reason: reason} }

var noStatus = Result{Status: Unknown, Reason: ReasonNoStatus}

// content returns the object's map, its status (nil when absent) and an
// error for a nil object or a status that is not an object.
func content(u *unstructured.Unstructured) (obj, status map[string]any, err error) {
	if u == nil || u.Object == nil {
		return nil, nil, ErrNoObject
	}
	status, err = mapField(u.Object, "status", "status")
	return u.Object, status, err
}

// generationCheck says how a rule compares status.observedGeneration with
// metadata.generation.
type generationCheck uint8

const (
	// noGenerationCheck: the kind has no observedGeneration.
	noGenerationCheck generationCheck = iota
	// generationRequired: an absent observedGeneration counts as stale.
	generationRequired
	// generationIfPresent: only a present observedGeneration is compared.
	generationIfPresent
)

// observedStatus returns the object and its status when a rule can judge
// them. Otherwise status is nil and res, err are the rule's answer: Unknown
// for no object, no status, a malformed field or a status that describes an
// older spec.
func observedStatus(u *unstructured.Unstructured, gen generationCheck) (obj, status map[string]any, res Result, err error) {
	obj, status, err = content(u)
	if err != nil {
		res, err = unknown(err)
		return nil, nil, res, err
	}
	if status == nil {
		return nil, nil, noStatus, nil
	}
	if gen != noGenerationCheck {
		r, stale, err := staleGeneration(obj, status, gen == generationIfPresent)
		if err != nil || stale {
			res, err = orUnknown(r, err)
			return nil, nil, res, err
		}
	}
	return obj, status, Result{}, nil
}

// staleGeneration reports whether status.observedGeneration differs from
// metadata.generation. With optional set, an absent observedGeneration is
// not stale.
func staleGeneration(obj, status map[string]any, optional bool) (Result, bool, error) {
	observed, found, err := intField(status, "observedGeneration", "status.observedGeneration")
	if err != nil {
		return Result{}, false, err
	}
	if !found && optional {
		return Result{}, false, nil
	}
	metadata, err := mapField(obj, "metadata", "metadata")
	if err != nil {
		return Result{}, false, err
	}
	generation, _, err := intField(metadata, "generation", "metadata.generation")
	if err != nil {
		return Result{}, false, err
	}
	if observed == generation {
		return Result{}, false, nil
	}
	return Result{Status: Unknown, Reason: reason(
		"status.observedGeneration ", observed, " differs from metadata.generation ", generation,
		": the status describes an older spec")}, true, nil
}

// specReplicas returns spec.replicas, 1 when absent (the API server's
// default).
func specReplicas(obj map[string]any) (int64, error) {
	spec, err := mapField(obj, "spec", "spec")
	if err != nil {
		return 0, err
	}
	replicas, found, err := intField(spec, "replicas", "spec.replicas")
	if !found && err == nil {
		replicas = 1
	}
	return replicas, err
}

// statusInts reads two integer fields of status; absent fields are 0.
func statusInts(status map[string]any, k1, p1, k2, p2 string) (int64, int64, error) {
	v1, _, err := intField(status, k1, p1)
	if err != nil {
		return 0, 0, err
	}
	v2, _, err := intField(status, k2, p2)
	return v1, v2, err
}

// shortfall is the Unhealthy result of "have < want".
func shortfall(haveField string, have int64, wantField string, want int64) Result {
	return unhealthy(reason(haveField, " ", have, " < ", wantField, " ", want))
}

// DeploymentHealth is the built-in rule for apps/Deployment: Healthy when
// the status is current, status.updatedReplicas >= spec.replicas and
// status.availableReplicas >= status.updatedReplicas (the rollout finished
// and every updated replica is available).
func DeploymentHealth(u *unstructured.Unstructured) (Result, error) {
	obj, status, res, err := observedStatus(u, generationRequired)
	if status == nil {
		return res, err
	}
	replicas, err := specReplicas(obj)
	if err != nil {
		return unknown(err)
	}
	updated, available, err := statusInts(status,
		"updatedReplicas", "status.updatedReplicas", "availableReplicas", "status.availableReplicas")
	if err != nil {
		return unknown(err)
	}
	if updated < replicas {
		return shortfall("status.updatedReplicas", updated, "spec.replicas", replicas), nil
	}
	if available < updated {
		return shortfall("status.availableReplicas", available, "status.updatedReplicas", updated), nil
	}
	return healthy, nil
}

// StatefulSetHealth is the built-in rule for apps/StatefulSet: Healthy when
// the status is current, the pods a rolling update targets are updated
// (spec.replicas minus spec.updateStrategy.rollingUpdate.partition), every
// replica is available and no updated replica is unavailable — what
// kubectl rollout status waits for.
func StatefulSetHealth(u *unstructured.Unstructured) (Result, error) {
	obj, status, res, err := observedStatus(u, generationRequired)
	if status == nil {
		return res, err
	}
	replicas, err := specReplicas(obj)
	if err != nil {
		return unknown(err)
	}
	partition, err := statefulSetPartition(obj)
	if err != nil {
		return unknown(err)
	}
	updated, available, err := statusInts(status,
		"updatedReplicas", "status.updatedReplicas", "availableReplicas", "status.availableReplicas")
	if err != nil {
		return unknown(err)
	}
	if want := replicas - partition; updated < want {
		return shortfall("status.updatedReplicas", updated, "spec.replicas - partition", want), nil
	}
	if available < replicas {
		return shortfall("status.availableReplicas", available, "spec.replicas", replicas), nil
	}
	if available < updated {
		return shortfall("status.availableReplicas", available, "status.updatedReplicas", updated), nil
	}
	return healthy, nil
}

func statefulSetPartition(obj map[string]any) (int64, error) {
	spec, err := mapField(obj, "spec", "spec")
	if err != nil {
		return 0, err
	}
	strategy, err := mapField(spec, "updateStrategy", "spec.updateStrategy")
	if err != nil {
		return 0, err
	}
	rolling, err := mapField(strategy, "rollingUpdate", "spec.updateStrategy.rollingUpdate")
	if err != nil {
		return 0, err
	}
	partition, _, err := intField(rolling, "partition", "spec.updateStrategy.rollingUpdate.partition")
	return partition, err
}

// ReplicaSetHealth is the built-in rule for apps/ReplicaSet: Healthy when
// the status is current and status.availableReplicas >= spec.replicas.
func ReplicaSetHealth(u *unstructured.Unstructured) (Result, error) {
	obj, status, res, err := observedStatus(u, generationRequired)
	if status == nil {
		return res, err
	}
	replicas, err := specReplicas(obj)
	if err != nil {
		return unknown(err)
	}
	available, _, err := intField(status, "availableReplicas", "status.availableReplicas")
	if err != nil {
		return unknown(err)
	}
	if available < replicas {
		return shortfall("status.availableReplicas", available, "spec.replicas", replicas), nil
	}
	return healthy, nil
}

// DaemonSetHealth is the built-in rule for apps/DaemonSet: Healthy when the
// status is current, status.updatedNumberScheduled >=
// status.desiredNumberScheduled and status.numberAvailable >=
// status.updatedNumberScheduled.
func DaemonSetHealth(u *unstructured.Unstructured) (Result, error) {
	_, status, res, err := observedStatus(u, generationRequired)
	if status == nil {
		return res, err
	}
	desired, updated, err := statusInts(status,
		"desiredNumberScheduled", "status.desiredNumberScheduled", "updatedNumberScheduled", "status.updatedNumberScheduled")
	if err != nil {
		return unknown(err)
	}
	available, _, err := intField(status, "numberAvailable", "status.numberAvailable")
	if err != nil {
		return unknown(err)
	}
	if updated < desired {
		return shortfall("status.updatedNumberScheduled", updated, "status.desiredNumberScheduled", desired), nil
	}
	if available < updated {
		return shortfall("status.numberAvailable", available, "status.updatedNumberScheduled", updated), nil
	}
	return healthy, nil
}

// JobHealth is the built-in rule for batch/Job: Unhealthy once the Job has
// failed or is about to (condition Failed or FailureTarget is True),
// Healthy otherwise — running, suspended or complete. Job has no
// observedGeneration.
func JobHealth(u *unstructured.Unstructured) (Result, error) {
	_, status, res, err := observedStatus(u, noGenerationCheck)
	if status == nil {
		return res, err
	}
	conditions, err := listField(status, "conditions", "status.conditions")
	if err != nil {
		return unknown(err)
	}
	for _, c := range conditions {
		cond, ok := c.(map[string]any)
		if !ok {
			return unknown(&FieldError{Path: "status.conditions[]", Want: "object", Got: jsonType(c)})
		}
		condType, _, err := stringField(cond, "type", "status.conditions[].type")
		if err != nil {
			return unknown(err)
		}
		if condType != "Failed" && condType != "FailureTarget" {
			continue
		}
		condStatus, _, err := stringField(cond, "status", "status.conditions[].status")
		if err != nil {
			return unknown(err)
		}
		if condStatus == "True" {
			condReason, _, _ := stringField(cond, "reason", "status.conditions[].reason")
			return unhealthy("job condition " + condType + " is True: " + condReason), nil
		}
	}
	return healthy, nil
}

// PodHealth is the built-in rule for core/Pod: Healthy when the pod
// succeeded, or runs with condition Ready True; Unknown in phase Unknown (the
// node stopped reporting); Unhealthy otherwise.
func PodHealth(u *unstructured.Unstructured) (Result, error) {
	_, status, res, err := observedStatus(u, generationIfPresent)
	if status == nil {
		return res, err
	}
	phase, _, err := stringField(status, "phase", "status.phase")
	if err != nil {
		return unknown(err)
	}
	switch phase {
	case "Succeeded":
		return healthy, nil
	case "Unknown":
		return Result{Status: Unknown, Reason: "pod phase is Unknown"}, nil
	case "Running":
	case "":
		return unhealthy("pod phase not reported"), nil
	default:
		return unhealthy("pod phase is " + phase), nil
	}
	ready, err := conditionIsTrue(status, "Ready")
	if err != nil {
		return unknown(err)
	}
	if !ready {
		return unhealthy("pod is running but not Ready"), nil
	}
	return healthy, nil
}

// conditionIsTrue reports whether status.conditions holds condType with
// status True.
func conditionIsTrue(status map[string]any, condType string) (bool, error) {
	conditions, err := listField(status, "conditions", "status.conditions")
	if err != nil {
		return false, err
	}
	for _, c := range conditions {
		cond, ok := c.(map[string]any)
		if !ok {
			return false, &FieldError{Path: "status.conditions[]", Want: "object", Got: jsonType(c)}
		}
		t, _, err := stringField(cond, "type", "status.conditions[].type")
		if err != nil {
			return false, err
		}
		if t != condType {
			continue
		}
		s, _, err := stringField(cond, "status", "status.conditions[].status")
		return s == "True", err
	}
	return false, nil
}

// ServiceHealth is the built-in rule for core/Service: a LoadBalancer
// service is Healthy once its load balancer has an ingress IP or hostname;
// every other type is Healthy.
func ServiceHealth(u *unstructured.Unstructured) (Result, error) {
	if u == nil || u.Object == nil {
		return unknown(ErrNoObject)
	}
	spec, err := mapField(u.Object, "spec", "spec")
	if err != nil {
		return unknown(err)
	}
	serviceType, _, err := stringField(spec, "type", "spec.type")
	if err != nil {
		return unknown(err)
	}
	if serviceType != "LoadBalancer" {
		return healthy, nil
	}
	return loadBalancerHealth(u)
}

// IngressHealth is the built-in rule for networking.k8s.io/Ingress (and the
// older extensions/Ingress): Healthy once its load balancer has an ingress
// IP or hostname. Ingress has no observedGeneration.
func IngressHealth(u *unstructured.Unstructured) (Result, error) {
	return loadBalancerHealth(u)
}

func loadBalancerHealth(u *unstructured.Unstructured) (Result, error) {
	_, status, res, err := observedStatus(u, noGenerationCheck)
	if status == nil {
		return res, err
	}
	lb, err := mapField(status, "loadBalancer", "status.loadBalancer")
	if err != nil {
		return unknown(err)
	}
	ingress, err := listField(lb, "ingress", "status.loadBalancer.ingress")
	if err != nil {
		return unknown(err)
	}
	for _, item := range ingress {
		entry, ok := item.(map[string]any)
		if !ok {
			return unknown(&FieldError{Path: "status.loadBalancer.ingress[]", Want: "object", Got: jsonType(item)})
		}
		ip, _, err := stringField(entry, "ip", "status.loadBalancer.ingress[].ip")
		if err != nil {
			return unknown(err)
		}
		hostname, _, err := stringField(entry, "hostname", "status.loadBalancer.ingress[].hostname")
		if err != nil {
			return unknown(err)
		}
		if ip != "" || hostname != "" {
			return healthy, nil
		}
	}
	return unhealthy("load balancer has no ingress IP or hostname yet"), nil
}

// PersistentVolumeClaimHealth is the built-in rule for
// core/PersistentVolumeClaim: Healthy when status.phase is Bound.
func PersistentVolumeClaimHealth(u *unstructured.Unstructured) (Result, error) {
	_, status, res, err := observedStatus(u, noGenerationCheck)
	if status == nil {
		return res, err
	}
	phase, _, err := stringField(status, "phase", "status.phase")
	if err != nil {
		return unknown(err)
	}
	if phase == "" {
		return unhealthy("claim phase not reported"), nil
	}
	if phase != "Bound" {
		return unhealthy("claim phase is " + phase + ", not Bound"), nil
	}
	return healthy, nil
}

// PodDisruptionBudgetHealth is the built-in rule for
// policy/PodDisruptionBudget: Healthy when the status is current and
// status.currentHealthy >= status.desiredHealthy.
func PodDisruptionBudgetHealth(u *unstructured.Unstructured) (Result, error) {
	_, status, res, err := observedStatus(u, generationRequired)
	if status == nil {
		return res, err
	}
	current, desired, err := statusInts(status,
		"currentHealthy", "status.currentHealthy", "desiredHealthy", "status.desiredHealthy")
	if err != nil {
		return unknown(err)
	}
	if current < desired {
		return shortfall("status.currentHealthy", current, "status.desiredHealthy", desired), nil
	}
	return healthy, nil
}

// maxErrorReason bounds how much of a FlinkDeployment's status.error (often
// a serialised Java exception) goes into a reason.
const maxErrorReason = 256

// ReasonFlinkJobFailedInPlace is the reason of a FlinkDeployment whose job
// failed in its own code. The rule reports it Healthy: another cluster would
// run the same code into the same failure, so an application failover would
// only move the failure (and, for a stateful job, restart it from older
// state). Karmada's bundled rule keeps such a job where it is as well.
const ReasonFlinkJobFailedInPlace = "the job failed in its own code; moving it would not help"

// FlinkDeploymentHealth is the built-in rule for
// flink.apache.org/FlinkDeployment, on the Flink Kubernetes operator's
// status fields:
//   - Healthy (ReasonFlinkJobFailedInPlace) when status.jobStatus.state is
//     FAILED, or when status.error is set on a job that got past starting
//     (a state other than CREATED, INITIALIZING or RECONCILING): the job,
//     not the cluster, failed;
//   - Unhealthy when status.error is set, status.lifecycleState is FAILED or
//     status.jobManagerDeploymentStatus is ERROR: the deployment could not
//     start here, and another cluster may start it;
//   - Healthy when lifecycleState is SUSPENDED (stopped on purpose);
//   - with a job: Healthy when jobStatus.state is RUNNING or FINISHED,
//     Unhealthy in any other state (CREATED, RECONCILING, RESTARTING, ...);
//   - without a job (a session cluster): Healthy when lifecycleState is
//     STABLE or DEPLOYED.
func FlinkDeploymentHealth(u *unstructured.Unstructured) (Result, error) {
	_, status, res, err := observedStatus(u, generationIfPresent)
	if status == nil {
		return res, err
	}
	flinkError, _, err := stringField(status, "error", "status.error")
	if err != nil {
		return unknown(err)
	}
	jobStatus, err := mapField(status, "jobStatus", "status.jobStatus")
	if err != nil {
		return unknown(err)
	}
	jobState, hasJob, err := stringField(jobStatus, "state", "status.jobStatus.state")
	if err != nil {
		return unknown(err)
	}
	if jobState == "FAILED" || (flinkError != "" && jobPastStart(jobState)) {
		return Result{Status: Healthy, Reason: ReasonFlinkJobFailedInPlace}, nil
	}
	if flinkError != "" {
		if len(flinkError) > maxErrorReason {
			flinkError = flinkError[:maxErrorReason] + "..."
		}
		return unhealthy("flink error: " + flinkError), nil
	}
	lifecycle, _, err := stringField(status, "lifecycleState", "status.lifecycleState")
	if err != nil {
		return unknown(err)
	}
	jmStatus, _, err := stringField(status, "jobManagerDeploymentStatus", "status.jobManagerDeploymentStatus")
	if err != nil {
		return unknown(err)
	}
	switch {
	case lifecycle == "FAILED":
		return unhealthy("lifecycle state is FAILED"), nil
	case jmStatus == "ERROR":
		return unhealthy("job manager deployment status is ERROR"), nil
	case lifecycle == "SUSPENDED":
		return healthy, nil
	}
	if hasJob && jobState != "" {
		if jobState == "RUNNING" || jobState == "FINISHED" {
			return healthy, nil
		}
		return unhealthy("job state is " + jobState), nil
	}
	switch lifecycle {
	case "STABLE", "DEPLOYED":
		return healthy, nil
	case "":
		return noStatus, nil
	default:
		return unhealthy("lifecycle state is " + lifecycle), nil
	}
}

// orUnknown returns r, or the Unknown result of err when there is one.
func orUnknown(r Result, err error) (Result, error) {
	if err != nil {
		return unknown(err)
	}
	return r, nil
}

// jobPastStart reports whether a Flink job state shows the job was
// submitted and got past starting.
func jobPastStart(state string) bool {
	switch state {
	case "", "CREATED", "INITIALIZING", "RECONCILING":
		return false
	}
	return true
}
