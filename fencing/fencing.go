package fencing

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
)

// DefaultFenceAfter is Config.FenceAfter's default. A member that has not
// renewed its lease for two minutes has been Unknown on the control plane
// for more than a minute (its monitor grace period is 40 s); a failover off
// it starts only once its NoExecute taint (5 min by default) and the
// workload's toleration have run out, so fencing then costs no failover
// time, and a control-plane blip shorter than that stops nothing.
const DefaultFenceAfter = 2 * time.Minute

// Config is an agent's fence. The zero value is the safe default: fence
// after DefaultFenceAfter, stop each kind by BuiltinMethods, and delete a
// copy of a kind it does not know.
type Config struct {
	// FenceAfter is how long after the start of its last successful lease
	// renewal the agent stops its single-writer copies; zero means
	// DefaultFenceAfter. ValidateConfig refuses a negative value and one
	// above eviction.MaxDuration; Decide reads the first as the default
	// and the second as eviction.MaxDuration.
	FenceAfter time.Duration
	// Methods overrides, by GroupKind, how a kind is stopped (BuiltinMethods
	// gives the rest).
	Methods map[schema.GroupKind]Method
	// Hook, when set, is asked first how to stop a copy; see Hook.
	Hook Hook
}

// fenceAfter is the configured FenceAfter as Decide reads it.
func (c *Config) fenceAfter() time.Duration {
	switch {
	case c.FenceAfter <= 0:
		return DefaultFenceAfter
	case c.FenceAfter > eviction.MaxDuration:
		return eviction.MaxDuration
	}
	return c.FenceAfter
}

// EffectiveFenceAfter is the fence Decide applies for c: FenceAfter, or
// its default when zero. It is what the agent declares (Declare) and what a
// control plane passes to eviction.ValidateFencedEscape.
func (c Config) EffectiveFenceAfter() time.Duration { return c.fenceAfter() }

// ValidateConfig checks an agent's Config: FenceAfter by
// eviction.ValidateDuration, and each Methods entry names a kind and a
// Method this package knows. Field paths are the Go field names under
// fldPath in lowerCamelCase, a Methods entry indexed by its GroupKind.
func ValidateConfig(cfg Config, fldPath *field.Path) field.ErrorList {
	errs := eviction.ValidateDuration(cfg.FenceAfter, fldPath.Child("fenceAfter"))
	mp := fldPath.Child("methods")
	for gk, m := range cfg.Methods {
		p := mp.Key(gk.String())
		if gk.Kind == "" {
			errs = append(errs, field.Invalid(p, gk.String(), "the kind must not be empty"))
		}
		if !m.IsValid() {
			errs = append(errs, field.NotSupported(p, m, supportedMethods))
		}
	}
	return errs
}

// State is what an agent knows of its own lease. Keep it where a restart
// finds it (an object on the member cluster): an agent that restarts with
// a zero State fences at once, since it cannot tell how long it has not
// been heard.
type State struct {
	// LastRenewal is when the agent's last successful lease renewal
	// started, by the agent's clock. Take the time before sending the
	// renewal, not when the answer comes: the control plane may record the
	// renewal any time after it was sent, never before.
	LastRenewal time.Time `json:"lastRenewal,omitempty"`
	// FencedAt is when the agent stopped its single-writer copies; zero
	// while it has not.
	FencedAt time.Time `json:"fencedAt,omitempty"`
}

// Action is what Decide tells the agent to do.
type Action string

const (
	// ActionRun: the lease is fresh; single-writer copies run. Look again
	// at Decision.FenceAt.
	ActionRun Action = "Run"
	// ActionFence: the lease is overdue: stop every single-writer copy now
	// (StopFor says how) and record State.FencedAt.
	ActionFence Action = "Fence"
	// ActionStayFenced: fenced, and no renewal since: keep every
	// single-writer copy stopped, and start none.
	ActionStayFenced Action = "StayFenced"
	// ActionResume: fenced, and a renewal succeeded since: the control
	// plane hears the agent again. Read the placement after that renewal
	// and re-apply each single-writer copy still placed on this cluster
	// (its desired manifest, as the control plane holds it); leave stopped
	// one that is not (its deletion comes). Then clear State.FencedAt.
	ActionResume Action = "Resume"
)

// Decision is Decide's answer.
type Decision struct {
	Action Action
	// FenceAt is when the fence is due without a new renewal:
	// State.LastRenewal + FenceAfter (zero when the agent never renewed).
	FenceAt time.Time
	// NextCheck is when to decide again if no renewal succeeds meanwhile;
	// zero when only a renewal changes the answer.
	NextCheck time.Time
	// Message says why, for an event or a log line.
	Message string
}

// Decide answers "must I stop my single-writer workloads?" from the
// agent's State, the time and its Config, in this order:
//
//  1. Fenced (FencedAt set) and a renewal started at or after the fence,
//     and the lease is fresh: ActionResume.
//  2. Fenced otherwise: ActionStayFenced.
//  3. Never renewed (LastRenewal zero), or LastRenewal after now (the
//     clock went back, so the time since cannot be told): ActionFence.
//  4. now at or past LastRenewal + FenceAfter: ActionFence.
//  5. Otherwise ActionRun, NextCheck = FenceAt.
//
// Decide reads no clock and changes nothing; the agent acts on the answer
// and records FencedAt itself.
func Decide(st State, now time.Time, cfg Config) Decision {
	fa := cfg.fenceAfter()
	var d Decision
	if !st.LastRenewal.IsZero() {
		d.FenceAt = st.LastRenewal.Add(fa)
	}
	fresh := !st.LastRenewal.IsZero() && !st.LastRenewal.After(now) && now.Before(d.FenceAt)
	switch {
	case !st.FencedAt.IsZero() && fresh && !st.LastRenewal.Before(st.FencedAt):
		d.Action, d.NextCheck = ActionResume, d.FenceAt
		d.Message = "lease renewed since the fence: resume the single-writer copies still placed here"
	case !st.FencedAt.IsZero():
		d.Action = ActionStayFenced
		d.Message = "fenced, and the lease has not been renewed since: single-writer copies stay stopped"
	case st.LastRenewal.IsZero():
		d.Action = ActionFence
		d.Message = "the lease was never renewed: stop the single-writer copies until the control plane hears this cluster"
	case st.LastRenewal.After(now):
		d.Action = ActionFence
		d.Message = "the clock went back past the last renewal: stop the single-writer copies until the next renewal"
	case !fresh:
		d.Action = ActionFence
		d.Message = "no lease renewal for " + fa.String() + ": stop the single-writer copies, the control plane may start them elsewhere"
	default:
		d.Action, d.NextCheck = ActionRun, d.FenceAt
		d.Message = "lease fresh: single-writer copies run"
	}
	return d
}
