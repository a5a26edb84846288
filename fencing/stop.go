package fencing

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Method is how a copy is stopped.
type Method string

const (
	// MethodScaleToZero sets spec.replicas to 0 (Deployment, StatefulSet,
	// ReplicaSet, and any kind with a scale subresource shaped so). The
	// object stays, so resuming re-applies the desired replicas.
	MethodScaleToZero Method = "ScaleToZero"
	// MethodSuspend sets spec.job.state to "suspended", the Flink
	// Kubernetes operator's way to stop a FlinkDeployment's job (taking a
	// savepoint or keeping its last state, as the job's upgradeMode says).
	MethodSuspend Method = "Suspend"
	// MethodDelete deletes the object (DaemonSet, Job, Pod, and every kind
	// nothing else covers: deleting is what surely stops it). Resuming
	// re-creates it from the desired manifest.
	MethodDelete Method = "Delete"
	// MethodNone leaves the object alone: a kind that writes nothing
	// (Service, PersistentVolumeClaim, Ingress, PodDisruptionBudget).
	MethodNone Method = "None"
)

var supportedMethods = []Method{MethodScaleToZero, MethodSuspend, MethodDelete, MethodNone}

// IsValid reports whether m is a Method this package knows.
func (m Method) IsValid() bool {
	switch m {
	case MethodScaleToZero, MethodSuspend, MethodDelete, MethodNone:
		return true
	}
	return false
}

// BuiltinMethods returns how each kind the health package has a built-in
// interpreter for (failover/health.BuiltinInterpreters) is stopped, keyed
// by GroupKind so it serves every version. Each call returns a new map.
func BuiltinMethods() map[schema.GroupKind]Method {
	return map[schema.GroupKind]Method{
		{Group: "apps", Kind: "Deployment"}:                  MethodScaleToZero,
		{Group: "apps", Kind: "StatefulSet"}:                 MethodScaleToZero,
		{Group: "apps", Kind: "ReplicaSet"}:                  MethodScaleToZero,
		{Group: "apps", Kind: "DaemonSet"}:                   MethodDelete,
		{Group: "batch", Kind: "Job"}:                        MethodDelete,
		{Group: "", Kind: "Pod"}:                             MethodDelete,
		{Group: "", Kind: "Service"}:                         MethodNone,
		{Group: "", Kind: "PersistentVolumeClaim"}:           MethodNone,
		{Group: "networking.k8s.io", Kind: "Ingress"}:        MethodNone,
		{Group: "extensions", Kind: "Ingress"}:               MethodNone,
		{Group: "policy", Kind: "PodDisruptionBudget"}:       MethodNone,
		{Group: "flink.apache.org", Kind: "FlinkDeployment"}: MethodSuspend,
	}
}

var builtinMethods = BuiltinMethods()

// Hook is a user's rule for stopping a copy, asked before Config.Methods
// and BuiltinMethods. ok false passes the object on to them. A Stop it
// returns must be complete: a Method, and for every Method but Delete and
// None, the stopped Object (a copy; the hook must not modify obj).
type Hook func(obj *unstructured.Unstructured) (stop Stop, ok bool, err error)

// Stop is how to stop one copy.
type Stop struct {
	Method Method
	// Object is the stopped copy to apply on the member cluster, a
	// modified deep copy of the input, for ScaleToZero, Suspend and a
	// hook's own change; nil for Delete and None.
	Object *unstructured.Unstructured
}

// ErrCannotStop is wrapped by StopFor when the object cannot be stopped the
// way its kind says (no object, a field of the wrong type, a hook's
// incomplete answer). The agent should then delete the copy: a fence must
// stop it.
var ErrCannotStop = errors.New("cannot stop the copy")

// StopFor says how to stop obj, the copy on the member cluster: the hook's
// answer, else Config.Methods for its GroupKind, else BuiltinMethods, else
// MethodDelete. It never modifies obj; ScaleToZero and Suspend return a
// stopped deep copy. A field of the wrong type or a hook error is an error
// wrapping ErrCannotStop, naming the field.
func (c Config) StopFor(obj *unstructured.Unstructured) (Stop, error) {
	if obj == nil || obj.Object == nil {
		return Stop{}, fmt.Errorf("%w: no object", ErrCannotStop)
	}
	if c.Hook != nil {
		st, ok, err := c.Hook(obj)
		if err != nil {
			return Stop{}, fmt.Errorf("%w: hook: %w", ErrCannotStop, err)
		}
		if ok {
			switch {
			case !st.Method.IsValid():
				return Stop{}, fmt.Errorf("%w: hook returned method %q", ErrCannotStop, st.Method)
			case st.Method == MethodDelete || st.Method == MethodNone:
				st.Object = nil
			case st.Object == nil:
				return Stop{}, fmt.Errorf("%w: hook returned method %s without the stopped object", ErrCannotStop, st.Method)
			}
			return st, nil
		}
	}
	gk := obj.GroupVersionKind().GroupKind()
	m, ok := c.Methods[gk]
	if !ok || !m.IsValid() {
		if m, ok = builtinMethods[gk]; !ok {
			m = MethodDelete
		}
	}
	switch m {
	case MethodScaleToZero:
		out := obj.DeepCopy()
		spec, err := specOf(out)
		if err != nil {
			return Stop{}, err
		}
		spec["replicas"] = int64(0)
		return Stop{Method: m, Object: out}, nil
	case MethodSuspend:
		out := obj.DeepCopy()
		spec, err := specOf(out)
		if err != nil {
			return Stop{}, err
		}
		job, ok := spec["job"].(map[string]any)
		if spec["job"] != nil && !ok {
			return Stop{}, fmt.Errorf("%w: .spec.job is %T, not an object", ErrCannotStop, spec["job"])
		}
		if job == nil {
			job = map[string]any{}
			spec["job"] = job
		}
		job["state"] = "suspended"
		return Stop{Method: m, Object: out}, nil
	}
	return Stop{Method: m}, nil
}

func specOf(obj *unstructured.Unstructured) (map[string]any, error) {
	v, found := obj.Object["spec"]
	if !found || v == nil {
		spec := map[string]any{}
		obj.Object["spec"] = spec
		return spec, nil
	}
	spec, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: .spec is %T, not an object", ErrCannotStop, v)
	}
	return spec, nil
}

// Stopped reports whether obj, read back from the member cluster, shows
// its copy stopped the way its Method says: ScaleToZero once status.replicas
// is 0 or absent with spec.replicas 0, Suspend once spec.job.state is
// "suspended" and status.jobStatus.state is not RUNNING, None always.
// Delete is stopped once the object is gone: a non-nil obj is not.
func Stopped(obj *unstructured.Unstructured, m Method) bool {
	if obj == nil || obj.Object == nil {
		return m == MethodDelete || m == MethodNone
	}
	switch m {
	case MethodNone:
		return true
	case MethodScaleToZero:
		want, found, err := unstructured.NestedFieldNoCopy(obj.Object, "spec", "replicas")
		if err != nil || !found || !isZero(want) {
			return false
		}
		have, found, err := unstructured.NestedFieldNoCopy(obj.Object, "status", "replicas")
		return err == nil && (!found || isZero(have))
	case MethodSuspend:
		state, _, _ := unstructured.NestedString(obj.Object, "spec", "job", "state")
		running, _, _ := unstructured.NestedString(obj.Object, "status", "jobStatus", "state")
		return state == "suspended" && running != "RUNNING"
	}
	return false
}

func isZero(v any) bool {
	switch x := v.(type) {
	case int64:
		return x == 0
	case int32:
		return x == 0
	case int:
		return x == 0
	case float64:
		return x == 0
	}
	return false
}
