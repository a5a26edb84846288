package failover

import (
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"

	"github.com/fleetover/fleetover/eviction"
)

// The Ready condition of a cluster.
const (
	// ConditionTypeReady is the condition type the tracker maintains.
	ConditionTypeReady = "Ready"

	// ReasonClusterReady: the cluster answered and its health endpoint said ok.
	ReasonClusterReady = "ClusterReady"
	// ReasonClusterNotReady: the cluster answered but its health endpoint did not say ok.
	ReasonClusterNotReady = "ClusterNotReady"
	// ReasonClusterNotReachable: the cluster's API server could not be reached.
	ReasonClusterNotReachable = "ClusterNotReachable"
	// ReasonClusterStatusUnknown: a pull-mode cluster went silent.
	ReasonClusterStatusUnknown = "ClusterStatusUnknown"
)

// Defaults of ClusterHealthConfig, Karmada's.
const (
	DefaultClusterFailureThreshold   = 30 * time.Second
	DefaultClusterSuccessThreshold   = 30 * time.Second
	DefaultClusterMonitorGracePeriod = 40 * time.Second
	DefaultClusterStartupGracePeriod = 60 * time.Second
)

// MaxClusterHealthPeriod bounds every duration of a ClusterHealthConfig.
// A day is far beyond any sensible debounce or grace period; the bound keeps
// deadlines far from time arithmetic overflow, which would otherwise turn a
// huge grace period into one already past.
// It is eviction.MaxDuration, the ceiling of every duration the library
// is configured with.
const MaxClusterHealthPeriod = eviction.MaxDuration

// ClusterSyncMode says who reports a cluster's health.
type ClusterSyncMode string

const (
	// ClusterSyncModePush: the control plane probes the cluster itself.
	ClusterSyncModePush ClusterSyncMode = "Push"
	// ClusterSyncModePull: an agent in the cluster posts status and renews a lease.
	ClusterSyncModePull ClusterSyncMode = "Pull"
)

// Errors of the tracker, for errors.Is.
var (
	// ErrClusterNotRegistered: an observation for a cluster that was never registered.
	ErrClusterNotRegistered = errors.New("cluster not registered with the health tracker")
	// ErrInvalidClusterHealthState: Import refused a state.
	ErrInvalidClusterHealthState = errors.New("invalid cluster health state")
	// ErrInvalidClusterHealthConfig: NewClusterHealthTracker refused its
	// configuration.
	ErrInvalidClusterHealthConfig = errors.New("invalid cluster health configuration")
	// ErrInvalidPostedStatus: ObserveStatus refused a condition.
	ErrInvalidPostedStatus = errors.New("invalid posted cluster status")
)

// ClusterHealthConfig tunes a ClusterHealthTracker. Zero fields take the
// Default… values; a negative threshold means "no debounce" (and a negative
// grace period none). ValidateClusterHealthConfig states the bounds.
type ClusterHealthConfig struct {
	// FailureThreshold is how long a Ready cluster must keep failing before
	// it is reported not Ready.
	FailureThreshold time.Duration
	// SuccessThreshold is how long a not-Ready cluster must keep succeeding
	// before it is reported Ready.
	SuccessThreshold time.Duration
	// MonitorGracePeriod is how long a pull-mode cluster may stay silent (no
	// status, no lease renewal) before it is reported Unknown.
	MonitorGracePeriod time.Duration
	// StartupGracePeriod replaces MonitorGracePeriod for a pull-mode cluster
	// that has never been heard from since it was registered.
	StartupGracePeriod time.Duration
}

func (c ClusterHealthConfig) withDefaults() ClusterHealthConfig {
	def := func(v *time.Duration, d time.Duration) {
		switch {
		case *v == 0:
			*v = d
		case *v < 0:
			*v = 0
		}
	}
	def(&c.FailureThreshold, DefaultClusterFailureThreshold)
	def(&c.SuccessThreshold, DefaultClusterSuccessThreshold)
	def(&c.MonitorGracePeriod, DefaultClusterMonitorGracePeriod)
	def(&c.StartupGracePeriod, DefaultClusterStartupGracePeriod)
	return c
}

// ValidateClusterHealthConfig checks cfg as NewClusterHealthTracker does:
// no duration may exceed MaxClusterHealthPeriod. Field paths are the Go
// field names under fldPath.
func ValidateClusterHealthConfig(cfg ClusterHealthConfig, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"failureThreshold", cfg.FailureThreshold},
		{"successThreshold", cfg.SuccessThreshold},
		{"monitorGracePeriod", cfg.MonitorGracePeriod},
		{"startupGracePeriod", cfg.StartupGracePeriod},
	} {
		if d.v > MaxClusterHealthPeriod {
			errs = append(errs, field.Invalid(fldPath.Child(d.name), d.v.String(),
				fmt.Sprintf("must be at most %s", MaxClusterHealthPeriod)))
		}
	}
	return errs
}

// ProbeResult is one health report about a cluster: a control-plane probe of
// a push-mode cluster, or a status posted by a pull-mode cluster's agent.
type ProbeResult struct {
	// Reachable: the cluster's API server answered.
	Reachable bool
	// Healthy: its health endpoint said ok. Ignored when not Reachable.
	Healthy bool
	// Message, when set, is appended to the condition's message (an error
	// text, the health endpoint's answer).
	Message string
}

// ClusterHealthState is the exportable state of one tracked cluster. It is a
// plain JSON-serialisable value: persist it (or keep the cluster's Ready
// condition and lease) and Import it after a restart so the debounce and the
// silence countdown continue where they were. metav1.Time serialises with
// second precision, so the tracker keeps every timestamp at a whole second:
// the start of a countdown is rounded up (a countdown may last up to a
// second longer, never shorter), a LastTransitionTime is rounded down (as
// the API server stores it), and a JSON round trip changes nothing.
type ClusterHealthState struct {
	// SyncMode is Push or Pull.
	SyncMode ClusterSyncMode `json:"syncMode"`
	// Ready is the published Ready condition; nil before the first report.
	Ready *metav1.Condition `json:"ready,omitempty"`
	// Pending is the latest observation on the other side of the True /
	// not-True boundary, waiting for its threshold; nil when none.
	Pending *PendingReadiness `json:"pending,omitempty"`
	// LastHeard is the last status or lease renewal of the cluster.
	LastHeard *metav1.Time `json:"lastHeard,omitempty"`
	// RegisteredAt starts the startup grace period.
	RegisteredAt metav1.Time `json:"registeredAt"`
}

// PendingReadiness is an observation held back by the debounce.
type PendingReadiness struct {
	// Status, Reason and Message are the latest such observation.
	Status  metav1.ConditionStatus `json:"status"`
	Reason  string                 `json:"reason"`
	Message string                 `json:"message,omitempty"`
	// Since is when the cluster was first seen on this side of the boundary;
	// the threshold counts from it.
	Since metav1.Time `json:"since"`
}

// ClusterHealthTracker turns health reports into each cluster's Ready
// condition, debounced across the True / not-True boundary. Implementations
// are safe for concurrent use.
//
// Push-mode clusters are probed by the control plane; a push cluster never
// becomes Unknown from silence alone, since silence then means the prober
// stopped, not that the cluster did. Pull-mode clusters become Unknown when
// neither a status nor a lease renewal arrived for MonitorGracePeriod
// (StartupGracePeriod if they never reported).
type ClusterHealthTracker interface {
	// Register starts tracking a cluster (idempotent; a changed mode is
	// recorded). The startup grace period starts at the first registration.
	Register(cluster string, mode ClusterSyncMode)
	// Forget stops tracking a cluster.
	Forget(cluster string)
	// ObserveProbe records a health report and returns the Ready condition
	// after it. A report on the same side of the True / not-True boundary as
	// the published condition applies at once (a change between not-Ready
	// reasons is immediate); one on the other side applies once the cluster
	// has stayed there for the threshold.
	ObserveProbe(cluster string, result ProbeResult) (metav1.Condition, error)
	// ObserveLease records a lease renewal of a pull-mode cluster at
	// renewTime (the lease's persisted renewTime; a future value counts as
	// now). It is a sign of life only: it keeps the cluster from going
	// Unknown but does not change a published condition. A renewal within
	// MonitorGracePeriod of now ends any silence, however long ago the
	// renewal heard before it: a caller that looks late sees only the
	// latest renewal.
	ObserveLease(cluster string, renewTime time.Time) error
	// ObserveStatus records a Ready condition that a pull-mode cluster's
	// agent decided and posted itself, as Karmada's agent does: the agent
	// has debounced it already, so it is published as it is (status,
	// reason, message and transition time, a future or zero time counting
	// as now), any pending observation is dropped, and it is a sign of
	// life. A condition of another type or with a status other than True,
	// False or Unknown is refused with an error wrapping
	// ErrInvalidPostedStatus, and nothing changes.
	ObserveStatus(cluster string, posted metav1.Condition) error
	// Ready returns the Ready condition as of now, applying the silence rule;
	// false when nothing was published yet.
	Ready(cluster string) (metav1.Condition, bool)
	// NextCheck returns when the cluster's condition may change without any
	// new report (a debounce completing or a silence deadline); false when
	// nothing is scheduled.
	NextCheck(cluster string) (time.Time, bool)
	// Export returns a copy of a cluster's state.
	Export(cluster string) (ClusterHealthState, bool)
	// ExportAll returns a copy of every cluster's state.
	ExportAll() map[string]ClusterHealthState
	// Import replaces a cluster's state (registering it). The state comes
	// from an object anyone allowed to write it may have edited, so it is
	// checked against the clock:
	//   - a malformed state, or a LastHeard that is set but zero (it would
	//     make the cluster Unknown at once), is rejected with an error
	//     wrapping ErrInvalidClusterHealthState, and nothing changes;
	//   - a time in the future (Pending.Since, LastHeard, RegisteredAt,
	//     Ready.LastTransitionTime) is clamped to now. Clamping, not
	//     rejecting, because a writer whose clock ran a little ahead is
	//     normal; after the clamp a countdown restarts at most at the
	//     restart, so an edited state delays a transition by one threshold
	//     or grace period at most instead of for ever.
	// A zero RegisteredAt is set to now.
	Import(cluster string, state ClusterHealthState) error
}

// NewClusterHealthTracker returns a tracker reading "now" from clk. It
// refuses a cfg that ValidateClusterHealthConfig rejects with an error
// wrapping ErrInvalidClusterHealthConfig.
func NewClusterHealthTracker(clk clock.PassiveClock, cfg ClusterHealthConfig) (ClusterHealthTracker, error) {
	if errs := ValidateClusterHealthConfig(cfg, field.NewPath("clusterHealth")); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidClusterHealthConfig, errs.ToAggregate())
	}
	return &clusterHealthTracker{clock: clk, cfg: cfg.withDefaults(), clusters: map[string]*ClusterHealthState{}}, nil
}

type clusterHealthTracker struct {
	clock    clock.PassiveClock
	cfg      ClusterHealthConfig
	mu       sync.Mutex
	clusters map[string]*ClusterHealthState
}

func (t *clusterHealthTracker) Register(cluster string, mode ClusterSyncMode) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.clusters[cluster]; ok {
		s.SyncMode = mode
		return
	}
	t.clusters[cluster] = &ClusterHealthState{SyncMode: mode, RegisteredAt: countdownStart(t.clock.Now())}
}

func (t *clusterHealthTracker) Forget(cluster string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.clusters, cluster)
}

// registered returns a registered cluster's state; the caller holds t.mu.
func (t *clusterHealthTracker) registered(cluster string) (*ClusterHealthState, error) {
	s, ok := t.clusters[cluster]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrClusterNotRegistered, cluster)
	}
	return s, nil
}

func (t *clusterHealthTracker) ObserveProbe(cluster string, result ProbeResult) (metav1.Condition, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.registered(cluster)
	if err != nil {
		return metav1.Condition{}, err
	}
	now := t.clock.Now()
	t.applySilence(s, now)
	if s.LastHeard == nil {
		s.LastHeard = new(metav1.Time)
	}
	*s.LastHeard = countdownStart(now) // reports arrive every few seconds per cluster: no allocation

	status, reason, message := observedReadiness(result)
	cur := s.Ready
	if cur == nil || (cur.Status == metav1.ConditionTrue) == (status == metav1.ConditionTrue) {
		publish(s, status, reason, message, now)
		return *s.Ready, nil
	}
	if s.Pending == nil {
		s.Pending = &PendingReadiness{Since: countdownStart(now)}
	}
	s.Pending.Status, s.Pending.Reason, s.Pending.Message = status, reason, message
	threshold := t.cfg.FailureThreshold
	if status == metav1.ConditionTrue {
		threshold = t.cfg.SuccessThreshold
	}
	if !now.Before(s.Pending.Since.Add(threshold)) {
		publish(s, status, reason, message, now)
	}
	return *s.Ready, nil
}

func (t *clusterHealthTracker) ObserveLease(cluster string, renewTime time.Time) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.registered(cluster)
	if err != nil {
		return err
	}
	now := t.clock.Now()
	if renewTime.After(now) {
		renewTime = now
	}
	// A renewal older than the grace period leaves the cluster as silent as
	// it was: silence up to now may already have made it Unknown. A newer
	// one says the cluster is alive: a gap since the last renewal heard is
	// the caller's own lag (a restarted controller, a busy queue), which saw
	// only the latest of the renewals made meanwhile, not the cluster's
	// silence.
	if now.Sub(renewTime) >= t.cfg.MonitorGracePeriod {
		t.applySilence(s, now)
	}
	if heard := countdownStart(renewTime); s.LastHeard == nil || heard.After(s.LastHeard.Time) {
		s.LastHeard = &heard
	}
	return nil
}

func (t *clusterHealthTracker) ObserveStatus(cluster string, posted metav1.Condition) error {
	if posted.Type != ConditionTypeReady {
		return fmt.Errorf("%w: type %q: want %s", ErrInvalidPostedStatus, posted.Type, ConditionTypeReady)
	}
	if !validConditionStatus(posted.Status) {
		return fmt.Errorf("%w: status %q: want True, False or Unknown", ErrInvalidPostedStatus, posted.Status)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.registered(cluster)
	if err != nil {
		return err
	}
	now := t.clock.Now()
	heard := countdownStart(now)
	s.LastHeard = &heard
	at := posted.LastTransitionTime.Time
	if at.IsZero() || at.After(now) {
		at = now
	}
	s.Pending = nil
	s.Ready = &metav1.Condition{
		Type:               ConditionTypeReady,
		Status:             posted.Status,
		Reason:             posted.Reason,
		Message:            posted.Message,
		LastTransitionTime: metav1.NewTime(at.Truncate(time.Second)),
	}
	return nil
}

func (t *clusterHealthTracker) Ready(cluster string) (metav1.Condition, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.clusters[cluster]
	if !ok {
		return metav1.Condition{}, false
	}
	t.applySilence(s, t.clock.Now())
	if s.Ready == nil {
		return metav1.Condition{}, false
	}
	return *s.Ready, true
}

func (t *clusterHealthTracker) NextCheck(cluster string) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.clusters[cluster]
	if !ok {
		return time.Time{}, false
	}
	now := t.clock.Now()
	t.applySilence(s, now)
	var next time.Time
	if s.Pending != nil {
		threshold := t.cfg.FailureThreshold
		if s.Pending.Status == metav1.ConditionTrue {
			threshold = t.cfg.SuccessThreshold
		}
		next = s.Pending.Since.Add(threshold)
	}
	if deadline, ok := t.silenceDeadline(s); ok && (s.Ready == nil || s.Ready.Status != metav1.ConditionUnknown) {
		if next.IsZero() || deadline.Before(next) {
			next = deadline
		}
	}
	return next, !next.IsZero()
}

func (t *clusterHealthTracker) Export(cluster string) (ClusterHealthState, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.clusters[cluster]
	if !ok {
		return ClusterHealthState{}, false
	}
	return copyClusterHealthState(s), true
}

func (t *clusterHealthTracker) ExportAll() map[string]ClusterHealthState {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]ClusterHealthState, len(t.clusters))
	for name, s := range t.clusters {
		out[name] = copyClusterHealthState(s)
	}
	return out
}

func (t *clusterHealthTracker) Import(cluster string, state ClusterHealthState) error {
	if err := checkClusterHealthState(state); err != nil {
		return fmt.Errorf("cluster %q: %w", cluster, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := copyClusterHealthState(&state)
	now := t.clock.Now()
	start := countdownStart(now)
	if s.RegisteredAt.IsZero() || s.RegisteredAt.After(start.Time) {
		s.RegisteredAt = start
	}
	if s.LastHeard != nil && s.LastHeard.After(start.Time) {
		s.LastHeard = start.DeepCopy()
	}
	if s.Pending != nil && s.Pending.Since.After(start.Time) {
		s.Pending.Since = start
	}
	if s.Ready != nil && s.Ready.LastTransitionTime.After(now) {
		s.Ready.LastTransitionTime = metav1.NewTime(now.Truncate(time.Second))
	}
	t.clusters[cluster] = &s
	return nil
}

// silenceDeadline is when a pull-mode cluster becomes Unknown if nothing is
// heard; push-mode clusters have none.
func (t *clusterHealthTracker) silenceDeadline(s *ClusterHealthState) (time.Time, bool) {
	if s.SyncMode != ClusterSyncModePull {
		return time.Time{}, false
	}
	if s.LastHeard == nil {
		return s.RegisteredAt.Add(t.cfg.StartupGracePeriod), true
	}
	return s.LastHeard.Add(t.cfg.MonitorGracePeriod), true
}

// applySilence publishes Unknown once a pull-mode cluster's silence deadline
// has passed. The transition time is the deadline itself, not the moment of
// the check, so how often the caller looks does not shift later countdowns.
func (t *clusterHealthTracker) applySilence(s *ClusterHealthState, now time.Time) {
	deadline, ok := t.silenceDeadline(s)
	if !ok || now.Before(deadline) || (s.Ready != nil && s.Ready.Status == metav1.ConditionUnknown) {
		return
	}
	silence := t.cfg.MonitorGracePeriod
	msg := fmt.Sprintf("cluster has neither posted its status nor renewed its lease for %s", silence)
	if s.LastHeard == nil {
		silence = t.cfg.StartupGracePeriod
		msg = fmt.Sprintf("cluster has not reported since it was registered %s ago", silence)
	}
	publish(s, metav1.ConditionUnknown, ReasonClusterStatusUnknown, msg, deadline)
}

// publish sets the Ready condition, moving LastTransitionTime only when the
// status changes, and drops any pending observation.
func publish(s *ClusterHealthState, status metav1.ConditionStatus, reason, message string, at time.Time) {
	s.Pending = nil
	if s.Ready != nil && s.Ready.Status == status {
		s.Ready.Reason, s.Ready.Message = reason, message
		return
	}
	s.Ready = &metav1.Condition{
		Type:               ConditionTypeReady,
		Status:             status,
		Reason:             reason,
		Message:            message,
		LastTransitionTime: metav1.NewTime(at.Truncate(time.Second)),
	}
}

// countdownStart rounds t up to a whole second, so that a countdown starting
// at t survives a JSON round trip unchanged and never ends early.
func countdownStart(t time.Time) metav1.Time {
	s := t.Truncate(time.Second)
	if s.Before(t) {
		s = s.Add(time.Second)
	}
	return metav1.NewTime(s)
}

func observedReadiness(r ProbeResult) (metav1.ConditionStatus, string, string) {
	status, reason, msg := metav1.ConditionTrue, ReasonClusterReady, "cluster is healthy and ready to accept workloads"
	switch {
	case !r.Reachable:
		status, reason, msg = metav1.ConditionFalse, ReasonClusterNotReachable, "cluster is not reachable"
	case !r.Healthy:
		status, reason, msg = metav1.ConditionFalse, ReasonClusterNotReady, "cluster is reachable but its health endpoint did not answer ok"
	}
	if r.Message != "" {
		msg += ": " + r.Message
	}
	return status, reason, msg
}

func checkClusterHealthState(s ClusterHealthState) error {
	if s.SyncMode != ClusterSyncModePush && s.SyncMode != ClusterSyncModePull {
		return fmt.Errorf("%w: syncMode %q: want %s or %s", ErrInvalidClusterHealthState, s.SyncMode, ClusterSyncModePush, ClusterSyncModePull)
	}
	if r := s.Ready; r != nil {
		if r.Type != ConditionTypeReady {
			return fmt.Errorf("%w: ready.type %q: want %s", ErrInvalidClusterHealthState, r.Type, ConditionTypeReady)
		}
		if !validConditionStatus(r.Status) {
			return fmt.Errorf("%w: ready.status %q: want True, False or Unknown", ErrInvalidClusterHealthState, r.Status)
		}
		if r.LastTransitionTime.IsZero() {
			return fmt.Errorf("%w: ready.lastTransitionTime is required", ErrInvalidClusterHealthState)
		}
	}
	if s.LastHeard != nil && s.LastHeard.IsZero() {
		return fmt.Errorf("%w: lastHeard is zero: omit it if the cluster was never heard from", ErrInvalidClusterHealthState)
	}
	if p := s.Pending; p != nil {
		if !validConditionStatus(p.Status) {
			return fmt.Errorf("%w: pending.status %q: want True, False or Unknown", ErrInvalidClusterHealthState, p.Status)
		}
		if p.Since.IsZero() {
			return fmt.Errorf("%w: pending.since is required", ErrInvalidClusterHealthState)
		}
		if s.Ready == nil || (s.Ready.Status == metav1.ConditionTrue) == (p.Status == metav1.ConditionTrue) {
			return fmt.Errorf("%w: pending.status %q must be on the other side of the True / not-True boundary than ready.status", ErrInvalidClusterHealthState, p.Status)
		}
	}
	return nil
}

func validConditionStatus(s metav1.ConditionStatus) bool {
	return s == metav1.ConditionTrue || s == metav1.ConditionFalse || s == metav1.ConditionUnknown
}

func copyClusterHealthState(s *ClusterHealthState) ClusterHealthState {
	out := *s
	if s.Ready != nil {
		out.Ready = s.Ready.DeepCopy()
	}
	if s.Pending != nil {
		p := *s.Pending
		out.Pending = &p
	}
	if s.LastHeard != nil {
		out.LastHeard = s.LastHeard.DeepCopy()
	}
	return out
}
