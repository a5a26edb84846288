package failover

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
)

// ErrInvalidDetectorInput is wrapped by DetectApplicationFailure and
// Detector.Detect for a policy or input they cannot decide on; the message
// names the field.
var ErrInvalidDetectorInput = errors.New("invalid application failover input")

// ErrInvalidDetectorRecord is wrapped by Detector.Import for a record it
// refuses; ErrInvalidDetectorConfig by NewDetector for a configuration
// ValidateDetectorConfig rejects.
var (
	ErrInvalidDetectorRecord = errors.New("invalid application failover record")
	ErrInvalidDetectorConfig = errors.New("invalid application failover detector configuration")
)

// ObservedHealth is the health of a binding's workload on one cluster, as
// the binding's aggregated status carries it: a health.Status plus what the
// detector's pre-conditions need to know about when it was collected.
type ObservedHealth struct {
	// ClusterName is the member cluster.
	ClusterName string
	// Status is the interpreted health; empty or any other value than
	// Healthy, Unhealthy and Unknown counts as Unknown.
	Status health.Status
	// CollectedSince is when the control plane first collected the
	// workload's status on this cluster (the aggregated status item's
	// creationTimestamp). PreConditions.DelaySeconds counts from it; zero
	// means not collected yet.
	CollectedSince metav1.Time
	// Settled reports that the workload was Healthy on this cluster at least
	// once (the aggregated status item's settled field). The detector also
	// remembers Healthy observations itself, in its records.
	Settled bool
}

// WorkloadHealthRecord is what the detector remembers about one cluster of
// one binding between two looks. It is plain data with JSON tags so the
// caller can persist it (on the binding, as an annotation or a status field)
// and hand it back after a restart: a countdown then neither restarts nor
// skips. FailingSince has second precision, as metav1.Time serialises, so a
// record survives a JSON round trip unchanged.
type WorkloadHealthRecord struct {
	// ClusterName is the member cluster.
	ClusterName string `json:"clusterName"`
	// FailingSince is when the toleration countdown started; nil when no
	// countdown runs.
	// +optional
	FailingSince *metav1.Time `json:"failingSince,omitempty"`
	// Settled is set once the detector has seen the workload Healthy on the
	// cluster.
	// +optional
	Settled bool `json:"settled,omitempty"`
}

// DetectorInput is everything one decision for one binding depends on,
// apart from the time.
type DetectorInput struct {
	// Policy is the binding's application failover behaviour; nil disables
	// application failover (the decision is empty). Unset fields take the
	// defaults SetDefaultsApplicationFailoverBehavior would write.
	Policy *ApplicationFailoverBehavior
	// Clusters are the binding's current target clusters. Only they can be
	// evicted, and they are the evictions' ClustersBeforeFailover. Health of
	// other clusters (for instance clusters already being evicted) is
	// ignored.
	Clusters []string
	// Health is the workload's health per cluster. A target cluster with no
	// entry is Unknown; for a cluster listed twice the first entry counts.
	Health []ObservedHealth
	// Records are the records returned by the previous decision for this
	// binding (nil the first time). They are usually read back from an
	// object others can edit, so a FailingSince in the future or zero is
	// taken as now: the countdown runs one full toleration from this
	// decision instead of never ending or ending at once.
	Records []WorkloadHealthRecord
}

// DetectorConfig configures the detector. Its zero value is the safe
// default.
type DetectorConfig struct {
	// UnknownResetsCountdown makes an Unknown health clear a running
	// countdown, as Healthy does. That is Karmada's behaviour, under which a
	// workload flapping between Unhealthy and Unknown never fails over
	// (Karmada #7431). By default Unknown neither counts as failing (unless
	// the policy lists it in DecisionConditions.HealthyState) nor clears the
	// countdown.
	UnknownResetsCountdown bool
}

// ApplicationEviction is one cluster the workload must leave now.
type ApplicationEviction struct {
	// FromCluster is the cluster the workload leaves.
	FromCluster string
	// PurgeMode is the policy's, normalised; Gracefully when unset.
	PurgeMode eviction.PurgeMode
	// GracePeriodSeconds is set only when PurgeMode is Gracefully.
	GracePeriodSeconds *int32
	// SuppressDeletion is true for PurgeMode Never (the old copy stays until
	// a person removes the task) and nil otherwise.
	SuppressDeletion *bool
	// BlockPredecessorSeconds is how long the scheduler keeps the workload
	// away from FromCluster (0: for good); it belongs in the eviction
	// history, not in the task.
	BlockPredecessorSeconds *int32
	// Reason is eviction.ReasonApplicationFailure.
	Reason string
	// Message explains the decision for people.
	Message string
	// ClustersBeforeFailover are the binding's target clusters at the time
	// of the decision.
	ClustersBeforeFailover []string
	// Settled reports that the workload was Healthy on FromCluster at
	// least once, so the state it reports is its own progress (see
	// eviction.Eviction.Settled).
	Settled bool
}

// Detection is the outcome of one look at one binding.
type Detection struct {
	// Evictions are the clusters to evict now, in the order of
	// DetectorInput.Clusters.
	Evictions []ApplicationEviction
	// Records replace the input records; the caller persists them. An
	// evicted cluster's record is kept until the cluster leaves
	// DetectorInput.Clusters, which is how a carried-out eviction commits:
	// Evictions are proposals, and one the caller could not carry out (the
	// pacer refused it, the state could not be read) comes back at the next
	// look with its countdown and Settled flag, never restarted. Records of
	// clusters no longer targeted are dropped.
	Records []WorkloadHealthRecord
	// RecordsChanged reports whether Records differ from the input records,
	// so that the caller writes only on change.
	RecordsChanged bool
	// NextCheck is the earliest time a running delay or countdown may
	// change the decision; zero when nothing is pending, in which case only
	// a new health observation can change it. A NextCheck at or before the
	// decision's time means look again at once.
	NextCheck time.Time
}

// RequeueAfter returns how long to wait before looking again, and false
// when nothing is pending. It never reports "no requeue" for a running
// countdown: a countdown due now gives (0, true).
func (d Detection) RequeueAfter(now time.Time) (time.Duration, bool) {
	if d.NextCheck.IsZero() {
		return 0, false
	}
	return max(d.NextCheck.Sub(now), 0), true
}

// Eviction returns what eviction.Evict needs to move the workload off
// FromCluster. preserved is the state extracted from the old copy (package
// preservation). Evict copies every field into the task it adds, whose
// CreationTimestamp the assessment stamps when it first sees it.
func (e ApplicationEviction) Eviction(preserved map[string]string) eviction.Eviction {
	return eviction.Eviction{
		Cluster:                e.FromCluster,
		Producer:               eviction.ProducerApplicationFailover,
		Reason:                 e.Reason,
		Message:                e.Message,
		PurgeMode:              e.PurgeMode,
		GracePeriodSeconds:     e.GracePeriodSeconds,
		SuppressDeletion:       e.SuppressDeletion,
		Settled:                e.Settled,
		PreservedLabelState:    preserved,
		ClustersBeforeFailover: e.ClustersBeforeFailover,
	}
}

// appPolicy is a policy with its defaults applied, without copying it.
type appPolicy struct {
	delay       time.Duration
	hasDelay    bool
	needSettled bool
	toleration  time.Duration
	failing     []health.Status // nil means [Unhealthy]
	purgeMode   eviction.PurgeMode
	gracePeriod int32 // only with purgeMode Gracefully
	block       int32
}

func resolveAppPolicy(p *ApplicationFailoverBehavior) (appPolicy, error) {
	var r appPolicy
	const path = "failover.application."
	if pc := p.PreConditions; pc != nil {
		if pc.DelaySeconds != nil {
			if *pc.DelaySeconds < 0 {
				return r, fmt.Errorf("%w: %spreConditions.delaySeconds: %d is negative", ErrInvalidDetectorInput, path, *pc.DelaySeconds)
			}
			r.delay, r.hasDelay = time.Duration(*pc.DelaySeconds)*time.Second, *pc.DelaySeconds > 0
		}
		switch pc.HealthyState {
		case "":
		case health.Healthy:
			r.needSettled = true
		default:
			return r, fmt.Errorf("%w: %spreConditions.healthyState: %q, want Healthy or empty", ErrInvalidDetectorInput, path, pc.HealthyState)
		}
	}
	toleration := DefaultApplicationTolerationSeconds
	if t := p.DecisionConditions.TolerationSeconds; t != nil {
		toleration = *t
	}
	if toleration < 0 {
		return r, fmt.Errorf("%w: %sdecisionConditions.tolerationSeconds: %d is negative", ErrInvalidDetectorInput, path, toleration)
	}
	r.toleration = time.Duration(toleration) * time.Second
	for n, s := range p.DecisionConditions.HealthyState {
		if s != health.Unhealthy && s != health.Unknown {
			return r, fmt.Errorf("%w: %sdecisionConditions.healthyState[%d]: %q, want Unhealthy or Unknown", ErrInvalidDetectorInput, path, n, s)
		}
	}
	if len(p.DecisionConditions.HealthyState) > 0 {
		r.failing = p.DecisionConditions.HealthyState
	}
	r.purgeMode = p.PurgeMode.Normalize()
	if r.purgeMode == "" {
		r.purgeMode = DefaultPurgeMode
	}
	if !r.purgeMode.IsValid() {
		return r, fmt.Errorf("%w: %spurgeMode: %w %q", ErrInvalidDetectorInput, path, eviction.ErrUnknownPurgeMode, p.PurgeMode)
	}
	// Values, not pointers: resolving runs on every look, and only an
	// eviction needs pointers.
	r.gracePeriod = eviction.DefaultGracePeriodSeconds
	if p.GracePeriodSeconds != nil {
		r.gracePeriod = *p.GracePeriodSeconds
	}
	if r.purgeMode == eviction.PurgeGracefully && r.gracePeriod <= 0 {
		return r, fmt.Errorf("%w: %sgracePeriodSeconds: %d, want > 0", ErrInvalidDetectorInput, path, r.gracePeriod)
	}
	r.block = eviction.DefaultBlockPredecessorSeconds
	if p.BlockPredecessorSeconds != nil {
		r.block = *p.BlockPredecessorSeconds
	}
	if r.block < 0 {
		return r, fmt.Errorf("%w: %sblockPredecessorSeconds: %d is negative", ErrInvalidDetectorInput, path, r.block)
	}
	return r, nil
}

func (p *appPolicy) isFailing(s health.Status) bool {
	if p.failing == nil {
		return s == health.Unhealthy
	}
	return slices.Contains(p.failing, s)
}

// DetectApplicationFailure decides, for one binding at time now, which
// target clusters the workload must leave because it failed there. It is a
// pure function: the same input and now give the same decision.
//
// Per target cluster, in order:
//  1. Healthy clears the countdown and marks the cluster settled.
//  2. A status the policy does not count as failing (by default anything
//     but Unhealthy) evicts nothing. Unknown keeps a running countdown
//     (unless cfg.UnknownResetsCountdown); the time spent Unknown counts,
//     so a workload that is Unhealthy again after the countdown ran out is
//     evicted at once.
//  3. A failing status first needs the preconditions: with
//     PreConditions.HealthyState Healthy, the workload must have been
//     Healthy on the cluster once; with DelaySeconds, that long must have
//     passed since the status was first collected. No countdown runs
//     before.
//  4. Then the countdown starts (at now, to the second) if none runs, and
//     the cluster is evicted once TolerationSeconds have passed since it
//     started, at exactly TolerationSeconds included. TolerationSeconds 0
//     evicts at the first failing look.
//
// NextCheck is the earliest end of a running delay or countdown, so a
// caller that requeues for it never misses a deadline.
func DetectApplicationFailure(in DetectorInput, now time.Time, cfg DetectorConfig) (Detection, error) {
	if in.Policy == nil {
		return Detection{RecordsChanged: len(in.Records) > 0}, nil
	}
	policy, err := resolveAppPolicy(in.Policy)
	if err != nil {
		return Detection{}, err
	}
	d := Detection{Records: make([]WorkloadHealthRecord, 0, len(in.Clusters))}
	for _, cluster := range in.Clusters {
		if cluster == "" || d.alreadyHandled(cluster) {
			continue
		}
		rec := findRecord(in.Records, cluster)
		rec.FailingSince = plausibleFailingSince(rec.FailingSince, now)
		wh, found := findHealth(in.Health, cluster)
		status := wh.Status
		if !found || !status.IsValid() {
			status = health.Unknown
		}
		evict, next := policy.step(&rec, wh, status, now, cfg)
		if !next.IsZero() && (d.NextCheck.IsZero() || next.Before(d.NextCheck)) {
			d.NextCheck = next
		}
		if evict {
			d.Evictions = append(d.Evictions, policy.eviction(cluster, status, rec, wh.Settled, in.Clusters))
		}
		// An evicted cluster keeps its record: the eviction is a proposal
		// until it takes effect, and the cluster leaving the targets is what
		// drops the record. A refused or failed eviction is proposed again at
		// the next look, its countdown and Settled flag intact.
		if rec.FailingSince != nil || rec.Settled {
			d.Records = append(d.Records, rec)
		}
	}
	d.RecordsChanged = !slices.EqualFunc(d.Records, in.Records, recordsEqual)
	return d, nil
}

// alreadyHandled reports whether cluster, listed twice in Clusters, has
// been decided already.
func (d *Detection) alreadyHandled(cluster string) bool {
	for _, r := range d.Records {
		if r.ClusterName == cluster {
			return true
		}
	}
	for _, e := range d.Evictions {
		if e.FromCluster == cluster {
			return true
		}
	}
	return false
}

// step advances one cluster's record and reports whether to evict and when
// to look again.
func (p *appPolicy) step(rec *WorkloadHealthRecord, wh ObservedHealth, status health.Status, now time.Time, cfg DetectorConfig) (evict bool, next time.Time) {
	if status == health.Healthy {
		rec.Settled = true
		rec.FailingSince = nil
		return false, time.Time{}
	}
	if !p.isFailing(status) {
		if status == health.Unknown && cfg.UnknownResetsCountdown {
			rec.FailingSince = nil
		}
		if rec.FailingSince != nil {
			if deadline := rec.FailingSince.Add(p.toleration); now.Before(deadline) {
				return false, deadline
			}
		}
		return false, time.Time{}
	}
	if p.needSettled && !rec.Settled && !wh.Settled {
		// Never healthy here: a problem to solve in the cluster, not by
		// moving. A Healthy observation changes that, not time.
		rec.FailingSince = nil
		return false, time.Time{}
	}
	if p.hasDelay {
		if wh.CollectedSince.IsZero() {
			// The delay starts with the first collection, which is itself an
			// observation the caller is told about.
			rec.FailingSince = nil
			return false, time.Time{}
		}
		if start := wh.CollectedSince.Add(p.delay); now.Before(start) {
			rec.FailingSince = nil
			return false, start
		}
	}
	if rec.FailingSince == nil {
		since := metav1.NewTime(now).Rfc3339Copy()
		rec.FailingSince = &since
	}
	deadline := rec.FailingSince.Add(p.toleration)
	if now.Before(deadline) {
		return false, deadline
	}
	return true, time.Time{}
}

func (p *appPolicy) eviction(cluster string, status health.Status, rec WorkloadHealthRecord, settled bool, clusters []string) ApplicationEviction {
	since := rec.FailingSince
	e := ApplicationEviction{
		FromCluster:             cluster,
		Settled:                 rec.Settled || settled,
		PurgeMode:               p.purgeMode,
		BlockPredecessorSeconds: ptr.To(p.block),
		Reason:                  eviction.ReasonApplicationFailure,
		Message: fmt.Sprintf("workload %s on cluster %s since %s, longer than the toleration of %s",
			status, cluster, since.UTC().Format(time.RFC3339), p.toleration),
		ClustersBeforeFailover: slices.Clone(clusters),
	}
	switch p.purgeMode {
	case eviction.PurgeGracefully:
		e.GracePeriodSeconds = ptr.To(p.gracePeriod)
	case eviction.PurgeNever:
		e.SuppressDeletion = ptr.To(true)
	}
	return e
}

func findRecord(records []WorkloadHealthRecord, cluster string) WorkloadHealthRecord {
	for _, r := range records {
		if r.ClusterName == cluster {
			return r
		}
	}
	return WorkloadHealthRecord{ClusterName: cluster}
}

func findHealth(items []ObservedHealth, cluster string) (ObservedHealth, bool) {
	for _, h := range items {
		if h.ClusterName == cluster {
			return h, true
		}
	}
	return ObservedHealth{}, false
}

func recordsEqual(a, b WorkloadHealthRecord) bool {
	if a.ClusterName != b.ClusterName || a.Settled != b.Settled {
		return false
	}
	if a.FailingSince == nil || b.FailingSince == nil {
		return a.FailingSince == nil && b.FailingSince == nil
	}
	return a.FailingSince.Equal(b.FailingSince)
}

// DetectorRecord is one exported record of a Detector: a binding's record
// for one cluster.
type DetectorRecord struct {
	// Binding identifies the binding, as the caller keys it (for example
	// namespace/name).
	Binding string `json:"binding"`
	WorkloadHealthRecord
}

// Detector keeps the records of many bindings in memory for callers that
// do not store them on the binding. Export and Import carry the records
// across a restart, so a countdown neither restarts nor skips (Karmada
// #7171). Detect is DetectApplicationFailure with the detector's records
// and clock.
type Detector interface {
	// Detect decides for one binding and keeps the updated records. On
	// error the records are unchanged.
	Detect(binding string, policy *ApplicationFailoverBehavior, clusters []string, health []ObservedHealth) (Detection, error)
	// Forget drops the records of a binding that was deleted.
	Forget(binding string)
	// Export returns every record, sorted by binding and then cluster.
	Export() []DetectorRecord
	// Import replaces the records of every binding present in records;
	// the records of other bindings stay. Records come from objects anyone
	// allowed to write them may have edited, so:
	//   - a record without a binding or cluster name, or with a FailingSince
	//     that is set but zero (it would evict at the first look), is
	//     rejected: Import returns an error wrapping ErrInvalidDetectorRecord
	//     and imports nothing;
	//   - a FailingSince in the future is clamped to now, so the countdown
	//     runs one full toleration from the restart instead of never ending.
	//     Clamping, not rejecting, because a writer whose clock ran a little
	//     ahead is normal and its countdown is still worth keeping.
	Import(records []DetectorRecord) error
}

// ValidateDetectorConfig checks cfg as NewDetector does. Every
// DetectorConfig is valid today; the function exists so callers validate
// each configuration the same way, and so a future field gets its check.
func ValidateDetectorConfig(cfg DetectorConfig, fldPath *field.Path) field.ErrorList {
	return nil
}

// NewDetector returns a Detector that reads the time from clk. It refuses a
// cfg ValidateDetectorConfig rejects with an error wrapping
// ErrInvalidDetectorConfig.
func NewDetector(clk clock.PassiveClock, cfg DetectorConfig) (Detector, error) {
	if errs := ValidateDetectorConfig(cfg, field.NewPath("detector")); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidDetectorConfig, errs.ToAggregate())
	}
	return &detector{clock: clk, cfg: cfg, records: map[string][]WorkloadHealthRecord{}}, nil
}

type detector struct {
	clock   clock.PassiveClock
	cfg     DetectorConfig
	mu      sync.Mutex
	records map[string][]WorkloadHealthRecord
}

func (d *detector) Detect(binding string, policy *ApplicationFailoverBehavior, clusters []string, wh []ObservedHealth) (Detection, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out, err := DetectApplicationFailure(DetectorInput{
		Policy:   policy,
		Clusters: clusters,
		Health:   wh,
		Records:  d.records[binding],
	}, d.clock.Now(), d.cfg)
	if err != nil {
		return Detection{}, err
	}
	if len(out.Records) == 0 {
		delete(d.records, binding)
	} else {
		d.records[binding] = slices.Clone(out.Records)
	}
	return out, nil
}

func (d *detector) Forget(binding string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.records, binding)
}

func (d *detector) Export() []DetectorRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []DetectorRecord
	for binding, recs := range d.records {
		for _, r := range recs {
			r.FailingSince = r.FailingSince.DeepCopy()
			out = append(out, DetectorRecord{Binding: binding, WorkloadHealthRecord: r})
		}
	}
	slices.SortFunc(out, func(a, b DetectorRecord) int {
		if c := strings.Compare(a.Binding, b.Binding); c != 0 {
			return c
		}
		return strings.Compare(a.ClusterName, b.ClusterName)
	})
	return out
}

// plausibleFailingSince returns since, or now (at second precision, as a
// record stores it) when since is zero or in the future.
func plausibleFailingSince(since *metav1.Time, now time.Time) *metav1.Time {
	if since == nil || (!since.IsZero() && !since.After(now)) {
		return since
	}
	clamped := metav1.NewTime(now).Rfc3339Copy()
	return &clamped
}

func (d *detector) Import(records []DetectorRecord) error {
	now := d.clock.Now()
	imported := map[string][]WorkloadHealthRecord{}
	for i, r := range records {
		switch {
		case r.Binding == "":
			return fmt.Errorf("%w: records[%d].binding is required", ErrInvalidDetectorRecord, i)
		case r.ClusterName == "":
			return fmt.Errorf("%w: records[%d].clusterName is required", ErrInvalidDetectorRecord, i)
		case r.FailingSince != nil && r.FailingSince.IsZero():
			return fmt.Errorf("%w: records[%d].failingSince is zero: omit it when no countdown runs", ErrInvalidDetectorRecord, i)
		}
		rec := r.WorkloadHealthRecord
		rec.FailingSince = plausibleFailingSince(rec.FailingSince.DeepCopy(), now)
		imported[r.Binding] = append(imported[r.Binding], rec)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for binding, recs := range imported {
		d.records[binding] = recs
	}
	return nil
}
