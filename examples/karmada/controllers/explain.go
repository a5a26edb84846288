package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/why"
)

// ExplainConfig is what the explanation of a binding needs of the
// controllers' configuration: the same options the deciding controllers
// run with, so the explanation says what they do.
type ExplainConfig struct {
	// ClusterFailover reports that the taint manager runs (Karmada: the
	// Failover gate, --enable-taint-manager and
	// --enable-no-execute-taint-eviction).
	ClusterFailover bool
	// ApplicationFailover reports that the application failover
	// controller runs.
	ApplicationFailover bool
	// ClusterFailoverDefaults, DefaultTolerations, NoDefaultTolerations and
	// Tolerations are the taint manager's.
	ClusterFailoverDefaults failover.ClusterFailoverDefaults
	DefaultTolerations      failover.DefaultTolerationsConfig
	NoDefaultTolerations    bool
	Tolerations             failover.TolerationOptions
	// Assess is the graceful eviction controller's (and the dispatcher's
	// Directly escape).
	Assess eviction.AssessOptions
	// Detector is the application failover controller's.
	Detector failover.DetectorConfig
	// Health interprets a collected status that carries no health; nil
	// leaves it Unknown.
	Health *health.Registry
	// Pacer is the taint manager's eviction pacer, read only; nil when
	// the explanation runs outside the controllers (fleetover-explain),
	// which then reads the disruption mode from the clusters alone.
	Pacer eviction.Pacer
}

// ExplainConfig returns the explanation's view of cfg, for a process that
// runs no controllers (fleetover-explain): no pacer, a health registry of
// its own.
func (cfg Config) ExplainConfig() ExplainConfig {
	return ExplainConfig{
		ClusterFailover:         controllerEnabled(ControllerTaintManager, cfg.Controllers),
		ApplicationFailover:     controllerEnabled(ControllerApplicationFailover, cfg.Controllers),
		ClusterFailoverDefaults: cfg.ClusterFailover,
		DefaultTolerations:      cfg.DefaultTolerations,
		NoDefaultTolerations:    cfg.NoDefaultTolerations,
		Tolerations:             cfg.Tolerations,
		Assess:                  cfg.Assess,
		Detector:                cfg.Detector,
		Health:                  health.NewRegistry(cfg.Health),
	}
}

// ExplanationStep is one step of a binding's failover, from the cluster to
// the dispatch, as the library explains it.
type ExplanationStep struct {
	// Step names the decision (cluster health, toleration, eviction,
	// placement, dispatch, ...).
	Step string
	// Reason is the decision's reason code (CamelCase, stable).
	Reason string
	// Message is the sentence a person reads.
	Message string
	// Since is when the step's state began; zero when unknown.
	Since time.Time
	// Until is when it ends by itself; zero when time alone will not end
	// it.
	Until time.Time
	// Passing marks a step a controller is acting on right now (an
	// eviction due or paced by the fleet's rate, a placement, a task's
	// removal): it is shown, never written to the condition.
	Passing bool
}

// Explanation answers "why is this binding where it is": the chain of
// steps and the one that holds the workload.
type Explanation struct {
	Kind BindingKind
	Key  types.NamespacedName
	// Steps is the chain, in order.
	Steps []ExplanationStep
	// Holding is the index in Steps of the step that holds the workload
	// where it is; -1 when nothing does.
	Holding int
	// NextChange is when the explanation changes by itself (a toleration
	// ends, a countdown or a grace period runs out); zero when only a
	// change of the objects will change it.
	NextChange time.Time
	// Warning marks a holding step a person should act on (failover cannot
	// happen), as opposed to one that only waits.
	Warning bool
	// Condition is the binding's Failover condition as the controllers
	// last wrote it; nil when it has none.
	Condition *metav1.Condition
	// Warnings are the binding's policy settings whose failover can never
	// fire (why.Warnings); only ExplainBinding fills them.
	Warnings []why.Warning
}

// Held returns the step that holds the workload, and false when none does.
func (e *Explanation) Held() (ExplanationStep, bool) {
	if e == nil || e.Holding < 0 || e.Holding >= len(e.Steps) {
		return ExplanationStep{}, false
	}
	return e.Steps[e.Holding], true
}

// Passing reports that the holding step is passing: the controller acting
// on it (an eviction, a placement, a task removal) is about to change the
// binding, and its write carries the next condition.
func (e *Explanation) Passing() bool {
	step, held := e.Held()
	return held && step.Passing
}

// condition is the Failover condition the explanation asks for. A
// passing step is not written (Keep): the write of the controller
// that acts on it carries the next one, so a passing state costs no write
// and no event.
func (e *Explanation) condition() failoverCondition {
	if e.Passing() {
		return failoverCondition{Keep: true}
	}
	step, held := e.Held()
	if !held {
		// The last step says what is in place (settled).
		c := failoverCondition{Status: metav1.ConditionFalse, Reason: ReasonSettled, Message: "nothing holds the workload", EventType: corev1.EventTypeNormal}
		if n := len(e.Steps); n > 0 {
			c.Reason, c.Message = e.Steps[n-1].Reason, e.Steps[n-1].Message
		}
		return c
	}
	c := failoverCondition{Status: metav1.ConditionTrue, Reason: step.Reason, Message: step.Message, EventType: corev1.EventTypeNormal}
	if !step.Until.IsZero() {
		// An absolute time, so the message changes only with the step.
		c.Message += " until " + step.Until.UTC().Format(time.RFC3339)
	}
	if e.Warning {
		c.EventType = corev1.EventTypeWarning
	}
	return c
}

// ExplainBinding reads one binding of kind, its clusters, its Works and
// its failover policy through c and explains where it stands at now.
func ExplainBinding(ctx context.Context, c client.Reader, kind BindingKind, key types.NamespacedName, cfg ExplainConfig, now time.Time) (*Explanation, error) {
	rb := kind.NewObject()
	if err := c.Get(ctx, key, rb); err != nil {
		return nil, err
	}
	f, err := readExplainFacts(ctx, c, rb)
	if err != nil {
		return nil, err
	}
	ex := explain(f, cfg, now)
	if f.policyErr == nil {
		ex.Warnings = policyWarnings(f, cfg, now)
	}
	if c := meta.FindStatusCondition(bindingStatus(rb).Conditions, FailoverConditionType); c != nil {
		ex.Condition = c.DeepCopy()
	}
	return ex, nil
}

// explain asks the library about the facts.
func explain(f *explainFacts, cfg ExplainConfig, now time.Time) *Explanation {
	ex := &Explanation{Kind: kindOf(f.binding), Key: client.ObjectKeyFromObject(f.binding), Holding: -1}
	chainOf(ex, f, cfg, now)
	return ex
}
