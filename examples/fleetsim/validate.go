package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/suspension"
)

// Defaults of the simulated control plane; they are those of Karmada's
// controller flags unless noted.
const (
	defaultFailureThreshold        = 30 * time.Second
	defaultSuccessThreshold        = 30 * time.Second
	defaultMonitorGracePeriod      = 40 * time.Second
	defaultStartupGracePeriod      = 60 * time.Second
	defaultEvictionTimeout         = 5 * time.Minute
	defaultTolerationSeconds       = 300
	defaultGracefulEvictionTimeout = 10 * time.Minute
	defaultStartupDelay            = 20 * time.Second // simulator only: time for a new copy to become healthy
	defaultEvictionsPerSecond      = 50               // simulator only: global eviction rate
	// karmadaEvictionsPerSecond is karmada-controller-manager's
	// --resource-eviction-rate default.
	karmadaEvictionsPerSecond = 0.5
	maxSteps                  = 5_000_000
	// The pacer's rate is also its burst: below the minimum one eviction
	// takes over a day to earn, above the maximum the burst lets a whole
	// fleet out at once.
	minEvictionsPerSecond = 1e-5
	maxEvictionsPerSecond = 1e6
)

func (s Settings) withDefaults() Settings {
	def := func(d *Duration, v time.Duration) {
		if *d == 0 {
			*d = Duration(v)
		}
	}
	def(&s.FailureThreshold, defaultFailureThreshold)
	def(&s.SuccessThreshold, defaultSuccessThreshold)
	def(&s.MonitorGracePeriod, defaultMonitorGracePeriod)
	def(&s.StartupGracePeriod, defaultStartupGracePeriod)
	def(&s.EvictionTimeout, defaultEvictionTimeout)
	def(&s.GracefulEvictionTimeout, defaultGracefulEvictionTimeout)
	def(&s.StartupDelay, defaultStartupDelay)
	if s.Rules == "" {
		s.Rules = RulesFleetover
	}
	// Karmada's rules change the defaults: no timed NoExecute health
	// taint, no cluster failover (Failover gate and
	// --enable-no-execute-taint-eviction off), no default tolerations
	// (karmada-webhook adds none since v1.15), its eviction rate, and no
	// state injection (StatefulFailoverInjection is an alpha gate, off).
	fleetover := !s.karmada()
	boolDef := func(b **bool, v bool) {
		if *b == nil {
			*b = &v
		}
	}
	boolDef(&s.NoExecuteTaints, fleetover)
	boolDef(&s.ClusterFailover, fleetover)
	boolDef(&s.DefaultTolerations, fleetover)
	if s.DefaultTolerationSeconds == nil {
		v := int64(defaultTolerationSeconds)
		s.DefaultTolerationSeconds = &v
	}
	if s.EvictionsPerSecond == 0 {
		s.EvictionsPerSecond = defaultEvictionsPerSecond
		if s.karmada() {
			s.EvictionsPerSecond = karmadaEvictionsPerSecond
		}
	}
	boolDef(&s.StatefulInjection, fleetover)
	s.ClusterPurgeMode = s.ClusterPurgeMode.Normalize()
	return s
}

// validateTaintPolicies checks settings.clusterTaintPolicies with the
// library's rules; each policy's clusters must be clusters of the scenario.
func validateTaintPolicies(c *errCollector, sc *Scenario) {
	known := map[string]bool{}
	for _, cl := range sc.Clusters {
		known[cl.Name] = true
	}
	lib := make([]failover.ConditionTaintPolicy, len(sc.Settings.ClusterTaintPolicies))
	for i, p := range sc.Settings.ClusterTaintPolicies {
		lib[i] = p.library()
		for j, n := range p.Clusters {
			if !known[n] {
				c.add(fmt.Sprintf("settings.clusterTaintPolicies[%d].clusters[%d]", i, j), "unknown cluster %q", n)
			}
		}
	}
	for _, fe := range failover.ValidateClusterTaintConfig(failover.ClusterTaintConfig{Policies: lib}, field.NewPath("settings")) {
		c.add(strings.Replace(fe.Field, "settings.policies", "settings.clusterTaintPolicies", 1), "%s", fe.ErrorBody())
	}
}

var taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

var knownKinds = []string{"Deployment", "StatefulSet", "FlinkDeployment"}

func validateScenario(c *errCollector, sc *Scenario) {
	step := sc.Step.D()
	if step == 0 {
		step = 5 * time.Second
	}
	if step < time.Second || step > time.Minute {
		c.add("step", "must be between 1s and 1m, got %s", step)
	}
	dur := sc.Duration.D()
	if dur == 0 {
		dur = time.Hour
	}
	if dur > 31*24*time.Hour {
		c.add("duration", "must be at most 31 days, got %s", dur)
	} else if step >= time.Second && int64(dur/step) > maxSteps {
		c.add("duration", "%s at a step of %s is more than %d steps", dur, step, maxSteps)
	}
	st := sc.Settings
	if st.ClusterPurgeMode != "" {
		if _, err := eviction.ParsePurgeMode(string(st.ClusterPurgeMode)); err != nil {
			c.add("settings.clusterPurgeMode", "%v", err)
		}
	}
	for _, fe := range failover.ValidateClusterHealthConfig(failover.ClusterHealthConfig{FailureThreshold: st.FailureThreshold.D(), SuccessThreshold: st.SuccessThreshold.D(), MonitorGracePeriod: st.MonitorGracePeriod.D(), StartupGracePeriod: st.StartupGracePeriod.D()}, field.NewPath("settings")) {
		c.add(fe.Field, "%s", fe.ErrorBody())
	}
	switch eps := st.EvictionsPerSecond; {
	case math.IsNaN(eps) || math.IsInf(eps, 0):
		c.add("settings.evictionsPerSecond", "must be a number, got %v", eps)
	case eps < 0:
		c.add("settings.evictionsPerSecond", "must not be negative")
	case eps != 0 && (eps < minEvictionsPerSecond || eps > maxEvictionsPerSecond):
		c.add("settings.evictionsPerSecond", "must be between %g and %g (leave it out for the default %d), got %g",
			minEvictionsPerSecond, maxEvictionsPerSecond, defaultEvictionsPerSecond, eps)
	default:
		// Rate and burst both come from evictionsPerSecond.
		for _, err := range eviction.ValidatePacerConfig(pacerConfig(st), field.NewPath("pacer")) {
			c.add("settings.evictionsPerSecond", "%s", err.ErrorBody())
		}
	}
	if fa := st.FenceAfter.D(); fa != 0 {
		// The control plane's escape is the default; the fence must fit in it.
		for _, err := range eviction.ValidateFencedEscape(eviction.AssessOptions{}, fa, field.NewPath("settings")) {
			c.add(err.Field, "%s", err.ErrorBody())
		}
	}
	if st.DefaultTolerationSeconds != nil && *st.DefaultTolerationSeconds < 0 {
		c.add("settings.defaultTolerationSeconds", "must not be negative")
	}
	if st.Rules != "" && st.Rules != RulesFleetover && st.Rules != RulesKarmada {
		c.add("settings.rules", "must be %s or %s, got %q", RulesFleetover, RulesKarmada, st.Rules)
	}
	if st.karmada() && st.FenceAfter != 0 {
		c.add("settings.fenceAfter", "Karmada's rules have no fencing (its Directly purge never gives up on an old copy); leave it out or use rules %s", RulesFleetover)
	}
	validateTaintPolicies(c, sc)
	// Zero means zero or is an error, never a silent default: these
	// settings take their default when left out, and 0 is no value for
	// them (the library reads a zero as its default).
	for _, z := range []struct {
		key string
		v   Duration
		def time.Duration
	}{
		{"failureThreshold", st.FailureThreshold, defaultFailureThreshold},
		{"successThreshold", st.SuccessThreshold, defaultSuccessThreshold},
		{"monitorGracePeriod", st.MonitorGracePeriod, defaultMonitorGracePeriod},
		{"startupGracePeriod", st.StartupGracePeriod, defaultStartupGracePeriod},
		{"evictionTimeout", st.EvictionTimeout, defaultEvictionTimeout},
		{"gracefulEvictionTimeout", st.GracefulEvictionTimeout, defaultGracefulEvictionTimeout},
		{"startupDelay", st.StartupDelay, defaultStartupDelay},
	} {
		if _, given := c.ix.byPath["settings."+z.key]; given && z.v == 0 {
			c.add("settings."+z.key, "must be greater than 0: 0 is not taken as %s (leave the setting out for that default)", z.def)
		}
	}
	if _, given := c.ix.byPath["settings.evictionsPerSecond"]; given && st.EvictionsPerSecond == 0 {
		c.add("settings.evictionsPerSecond", "must be greater than 0: 0 is not taken as the default (leave the setting out for it)")
	}
	for _, k := range []string{"step", "duration"} {
		v := sc.Step
		if k == "duration" {
			v = sc.Duration
		}
		if _, given := c.ix.byPath[k]; given && v == 0 {
			c.add(k, "must be greater than 0 (leave it out for the default)")
		}
	}

	if len(sc.Clusters) == 0 {
		c.add("clusters", "a scenario needs at least one cluster")
	}
	clusters := map[string]bool{}
	zones := map[string]bool{}
	for i, cl := range sc.Clusters {
		p := fmt.Sprintf("clusters[%d]", i)
		switch {
		case cl.Name == "":
			c.add(p+".name", "must not be empty")
		case len(validation.IsDNS1123Subdomain(cl.Name)) > 0:
			c.add(p+".name", "%q is not a valid cluster name: %s", cl.Name, validation.IsDNS1123Subdomain(cl.Name)[0])
		case clusters[cl.Name]:
			c.add(p+".name", "duplicate cluster %q", cl.Name)
		}
		clusters[cl.Name] = true
		if cl.Zone == "" {
			c.add(p+".zone", "must not be empty: every cluster belongs to a zone")
		}
		zones[cl.Zone] = true
		if cl.SyncMode != "" && cl.SyncMode != "Push" && cl.SyncMode != "Pull" {
			c.add(p+".syncMode", "must be Push or Pull, got %q", cl.SyncMode)
		}
		for j, t := range cl.Taints {
			tp := fmt.Sprintf("%s.taints[%d]", p, j)
			if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
				c.add(tp+".key", "%q is not a valid taint key: %s", t.Key, errs[0])
			}
			if !slices.Contains(taintEffects, t.Effect) {
				c.add(tp+".effect", "must be one of %v, got %q", taintEffects, t.Effect)
			}
		}
	}

	workloads := map[string]bool{}
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		p := fmt.Sprintf("workloads[%d]", i)
		switch {
		case w.Name == "":
			c.add(p+".name", "must not be empty")
		case workloads[w.Name]:
			c.add(p+".name", "duplicate workload %q", w.Name)
		}
		workloads[w.Name] = true
		if !slices.Contains(knownKinds, w.Kind) {
			c.add(p+".kind", "must be one of %v, got %q", knownKinds, w.Kind)
		}
		if w.Replicas < 1 || w.Replicas > 100000 {
			c.add(p+".replicas", "must be between 1 and 100000, got %d", w.Replicas)
		}
		validatePlacement(c, &w.Placement, p+".placement", clusters, zones)
		if g := w.AffinityGroup; g != "" && !slices.ContainsFunc(w.Placement.ClusterAffinities, func(t ClusterAffinityTerm) bool { return t.AffinityName == g }) {
			c.add(p+".affinityGroup", "%q names no group of placement.clusterAffinities", g)
		}
		placed := map[string]bool{}
		for j, t := range w.Clusters {
			tp := fmt.Sprintf("%s.clusters[%d]", p, j)
			switch {
			case !clusters[t.Name]:
				c.add(tp+".name", "unknown cluster %q", t.Name)
			case placed[t.Name]:
				c.add(tp+".name", "cluster %q is placed twice", t.Name)
			}
			placed[t.Name] = true
			if t.Replicas < 0 || t.Replicas > w.Replicas {
				c.add(tp+".replicas", "must be between 0 and the workload's %d replicas, got %d", w.Replicas, t.Replicas)
			}
		}
		for _, fe := range eviction.ValidateGracefulEvictionTasks(w.EvictionTasks, field.NewPath(p, "evictionTasks")) {
			c.add(fe.Field, "%s", fe.ErrorBody())
		}
		for j, t := range w.EvictionTasks {
			tp := fmt.Sprintf("%s.evictionTasks[%d].fromCluster", p, j)
			switch {
			case t.FromCluster == "":
			case !clusters[t.FromCluster]:
				c.add(tp, "unknown cluster %q", t.FromCluster)
			case placed[t.FromCluster]:
				c.add(tp, "the workload is leaving %s and placed there at once", t.FromCluster)
			}
		}
		for _, fe := range failover.ValidateFailoverBehavior(w.Failover, field.NewPath(p, "failover")) {
			c.add(fe.Field, "%s", fe.ErrorBody())
		}
		if s := w.Suspend; s != nil {
			sp := p + ".suspension"
			onKey := suspensionOnClustersKey(c, sp)
			for _, fe := range suspension.ValidateSuspension(s, field.NewPath(p, "suspension")) {
				c.add(strings.Replace(fe.Field, sp+".dispatchingOnClusters", sp+"."+onKey, 1), "%s", fe.ErrorBody())
			}
			if s.DispatchingOnClusters != nil {
				for j, n := range s.DispatchingOnClusters.ClusterNames {
					if !clusters[n] {
						c.add(fmt.Sprintf("%s.%s.clusterNames[%d]", sp, onKey, j), "unknown cluster %q", n)
					}
				}
			}
		}
	}

	for i, f := range sc.Faults {
		p := fmt.Sprintf("faults[%d]", i)
		if !slices.Contains(faultTypes, f.Type) {
			c.add(p+".type", "must be one of %v, got %q", faultTypes, f.Type)
			continue
		}
		if f.At.D() > dur {
			c.add(p+".at", "%s is after the end of the scenario (%s)", f.At.D(), dur)
		}
		needCluster := f.Type == FaultOutage || f.Type == FaultNotReady || f.Type == FaultPartition || f.Type == FaultFlap ||
			f.Type == FaultFlapReady || f.Type == FaultPartitionOnPurge
		needWorkload := f.Type == FaultWorkloadUnhealthy || f.Type == FaultWorkloadHealthy || f.Type == FaultDelete ||
			f.Type == FaultSuspend || f.Type == FaultResume || f.Type == FaultStateUnreadable || f.Type == FaultStateReadable ||
			f.Type == FaultSuspendScheduling || f.Type == FaultResumeScheduling
		switch {
		case needCluster && f.Cluster == "":
			c.add(p+".cluster", "a %s fault names a cluster", f.Type)
		case f.Cluster != "" && !clusters[f.Cluster]:
			c.add(p+".cluster", "unknown cluster %q", f.Cluster)
		}
		switch {
		case f.Type == FaultZoneOutage && f.Zone == "":
			c.add(p+".zone", "a zoneOutage fault names a zone")
		case f.Zone != "" && !zones[f.Zone]:
			c.add(p+".zone", "unknown zone %q", f.Zone)
		}
		switch {
		case needWorkload && f.Workload == "":
			c.add(p+".workload", "a %s fault names a workload", f.Type)
		case f.Workload != "" && !workloads[f.Workload]:
			c.add(p+".workload", "unknown workload %q", f.Workload)
		}
		if (f.Type == FaultFlap || f.Type == FaultFlapReady) && f.Period.D() < step {
			c.add(p+".period", "a %s needs a period of at least one step (%s)", f.Type, step)
		}
		if f.Type == FaultPartitionOnPurge && f.For.D() <= 0 {
			c.add(p+".for", "a partitionOnPurge says how long the partition lasts")
		}
		if f.Type == FaultRecover && f.Cluster != "" && f.Zone != "" {
			c.add(p+".zone", "recover names a cluster or a zone, not both")
		}
	}
}

func suspensionOnClustersKey(c *errCollector, sp string) string {
	if _, ok := c.ix.keys[sp+".suspendDispatchingOnClusters"]; ok {
		return "suspendDispatchingOnClusters"
	}
	return "dispatchingOnClusters"
}

func validatePlacement(c *errCollector, pl *PlacementSpec, p string, clusters, zones map[string]bool) {
	if a := pl.ClusterAffinity; a != nil {
		validateAffinity(c, a, p+".clusterAffinity", clusters, zones)
		if len(pl.ClusterAffinities) > 0 {
			c.add(p+".clusterAffinities", "clusterAffinity and clusterAffinities exclude each other")
		}
	}
	names := map[string]bool{}
	for j := range pl.ClusterAffinities {
		term := &pl.ClusterAffinities[j]
		tp := fmt.Sprintf("%s.clusterAffinities[%d]", p, j)
		switch {
		case term.AffinityName == "":
			c.add(tp+".affinityName", "must not be empty: it names the group in use")
		case names[term.AffinityName]:
			c.add(tp+".affinityName", "%q names an earlier group too", term.AffinityName)
		}
		names[term.AffinityName] = true
		validateAffinity(c, &term.ClusterAffinity, tp, clusters, zones)
	}
	spreadBy := map[string]bool{}
	for j, s := range pl.SpreadConstraints {
		sp := fmt.Sprintf("%s.spreadConstraints[%d]", p, j)
		by := s.SpreadByField
		if by == "" {
			by = SpreadByCluster
		}
		switch {
		case by != SpreadByCluster && by != SpreadByZone && by != SpreadByRegion:
			c.add(sp+".spreadByField", "must be cluster, zone or region, got %q", s.SpreadByField)
		case spreadBy[by]:
			c.add(sp+".spreadByField", "a second %s spread constraint: each field is constrained once", by)
		}
		spreadBy[by] = true
		if s.MinGroups < 0 {
			c.add(sp+".minGroups", "must not be negative")
		}
		if s.MaxGroups < 0 {
			c.add(sp+".maxGroups", "must not be negative")
		}
		if s.MaxGroups > 0 && s.MinGroups > s.MaxGroups {
			c.add(sp+".minGroups", "%d is more than maxGroups %d", s.MinGroups, s.MaxGroups)
		}
	}
	for _, by := range [...]string{SpreadByRegion, SpreadByZone} {
		if spreadBy[by] && !spreadBy[SpreadByCluster] {
			c.add(p+".spreadConstraints", "a %s spread constraint needs a cluster spread constraint beside it, which says how many clusters to pick", by)
		}
	}
	rs := pl.ReplicaScheduling
	switch rs.ReplicaSchedulingType {
	case "", "Duplicated", "Divided":
	default:
		c.add(p+".replicaScheduling.replicaSchedulingType", "must be Duplicated or Divided, got %q", rs.ReplicaSchedulingType)
	}
	if rs.WeightPreference != nil {
		if rs.ReplicaSchedulingType != "Divided" {
			c.add(p+".replicaScheduling.weightPreference", "weights only apply to a Divided workload")
		}
		for j, sw := range rs.WeightPreference.StaticWeightList {
			wp := fmt.Sprintf("%s.replicaScheduling.weightPreference.staticWeightList[%d]", p, j)
			if sw.Weight <= 0 || sw.Weight > scheduling.MaxStaticWeight {
				c.add(wp+".weight", "must be between 1 and %d, got %d", scheduling.MaxStaticWeight, sw.Weight)
			}
			for k, n := range sw.TargetCluster.ClusterNames {
				if !clusters[n] {
					c.add(fmt.Sprintf("%s.targetCluster.clusterNames[%d]", wp, k), "unknown cluster %q", n)
				}
			}
			for k, z := range sw.TargetCluster.Zones {
				if !zones[z] {
					c.add(fmt.Sprintf("%s.targetCluster.zones[%d]", wp, k), "unknown zone %q", z)
				}
			}
		}
	}
}

// validateAffinity checks that an affinity names known clusters and zones.
func validateAffinity(c *errCollector, a *ClusterAffinity, p string, clusters, zones map[string]bool) {
	for j, n := range a.ClusterNames {
		if !clusters[n] {
			c.add(fmt.Sprintf("%s.clusterNames[%d]", p, j), "unknown cluster %q", n)
		}
	}
	for j, z := range a.Zones {
		if !zones[z] {
			c.add(fmt.Sprintf("%s.zones[%d]", p, j), "unknown zone %q", z)
		}
	}
}
