package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/fleetsim/karmadafleet"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/scheduling"
)

// The fault a -fleet run gets when no -scenario gives faults: the cluster
// running the most workloads (in the export's placement; ties by name)
// becomes unreachable, API server and workloads down, at fleetOutageAt for
// fleetOutageFor, in a run of fleetRunDuration.
const (
	fleetOutageAt    = 5 * time.Minute
	fleetOutageFor   = 30 * time.Minute
	fleetRunDuration = time.Hour
)

// Keys a -scenario file given with -fleet may hold: everything but the
// fleet itself.
var fleetOverlayKeys = []string{"name", "description", "seed", "duration", "step", "settings", "faults"}

// fleetRun is a Karmada export made into a scenario.
type fleetRun struct {
	// Label names the run's input in errors: the export, and the
	// -scenario file laid over it.
	Label string
	// Data is the scenario YAML; it replays as it is with -scenario.
	Data     []byte
	Fleet    *karmadafleet.Fleet
	Findings []karmadafleet.Finding
	// Left are the bindings left out of the simulation.
	Left []karmadafleet.Ref
	// DefaultFault describes the default fault when it applies (no
	// -scenario faults).
	DefaultFault string
	// Simulated are the workloads simulated, in scenario order.
	Simulated []simulatedBinding
	// standing are the faults that stand for the export's state: clusters
	// not Ready, copies Unhealthy.
	standing []FaultSpec
	// overlay is the -scenario file laid over the fleet, and its content.
	overlay     string
	overlayData []byte
	// Rules are the rules the run models (RulesKarmada by default), and
	// Karmada the command line of Karmada's controller manager.
	Rules   string
	Karmada *karmadaLine
	// Notes are what the rules leave out of the export, for the header.
	Notes []string
}

// fleetRules says which rules a -fleet run models: Karmada's with the
// command line k (nil: Karmada's defaults), or fleetover's.
type fleetRules struct {
	Rules   string
	Karmada *karmadaLine
}

// simulatedBinding says where a simulated workload comes from.
type simulatedBinding struct {
	Name    string
	Binding karmadafleet.Ref
	Policy  *karmadafleet.Ref
	// FromPolicy lists the blocks the policy gave (placement, failover,
	// suspension), the binding lacking them.
	FromPolicy []string
}

// genScenario is the scenario written for a fleet; its fields carry the
// scenario format's names (see scenario.go).
type genScenario struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Seed        int64         `json:"seed"`
	Duration    string        `json:"duration"`
	Step        string        `json:"step"`
	Settings    genSettings   `json:"settings"`
	Clusters    []genCluster  `json:"clusters"`
	Workloads   []genWorkload `json:"workloads"`
	Faults      []genFault    `json:"faults"`
}

type genCluster struct {
	Name     string      `json:"name"`
	Zone     string      `json:"zone"`
	Region   string      `json:"region,omitempty"`
	SyncMode string      `json:"syncMode"`
	Taints   []TaintSpec `json:"taints,omitempty"`
}

type genWorkload struct {
	Name     string      `json:"name"`
	Kind     string      `json:"kind"`
	Replicas int32       `json:"replicas"`
	Clusters []genTarget `json:"clusters,omitempty"`
	// AffinityGroup is the binding's status.schedulerObservingAffinityName.
	AffinityGroup string                         `json:"affinityGroup,omitempty"`
	Placement     genPlacement                   `json:"placement"`
	Failover      *karmadafleet.FailoverBehavior `json:"failover,omitempty"`
	Suspension    *karmadafleet.Suspension       `json:"suspension,omitempty"`
	// SchedulingSuspended is the binding's spec.suspension.scheduling.
	SchedulingSuspended bool              `json:"schedulingSuspended,omitempty"`
	State               map[string]string `json:"state,omitempty"`
	// EvictionTasks carry Karmada's field names, which the scenario's
	// evictionTasks block reads.
	EvictionTasks []karmadafleet.GracefulEvictionTask `json:"evictionTasks,omitempty"`
}

type genTarget struct {
	Name     string `json:"name"`
	Replicas int32  `json:"replicas,omitempty"`
}

type genAffinity struct {
	ClusterNames []string `json:"clusterNames"`
}

type genAffinityTerm struct {
	AffinityName string   `json:"affinityName"`
	ClusterNames []string `json:"clusterNames"`
}

type genPlacement struct {
	ClusterAffinity    *genAffinity       `json:"clusterAffinity,omitempty"`
	ClusterAffinities  []genAffinityTerm  `json:"clusterAffinities,omitempty"`
	ClusterTolerations any                `json:"clusterTolerations,omitempty"`
	SpreadConstraints  []genSpread        `json:"spreadConstraints,omitempty"`
	ReplicaScheduling  genReplicaSchedule `json:"replicaScheduling"`
}

type genSpread struct {
	SpreadByField string `json:"spreadByField"`
	MinGroups     int    `json:"minGroups,omitempty"`
	MaxGroups     int    `json:"maxGroups,omitempty"`
}

type genReplicaSchedule struct {
	ReplicaSchedulingType string              `json:"replicaSchedulingType"`
	WeightPreference      *genWeightPreferred `json:"weightPreference,omitempty"`
}

type genWeightPreferred struct {
	StaticWeightList []genStaticWeight `json:"staticWeightList"`
}

type genStaticWeight struct {
	TargetCluster genAffinity `json:"targetCluster"`
	Weight        int64       `json:"weight"`
}

type genFault struct {
	At       string `json:"at"`
	Type     string `json:"type"`
	Cluster  string `json:"cluster,omitempty"`
	Workload string `json:"workload,omitempty"`
	For      string `json:"for,omitempty"`
}

// loadFleetRun reads the export at path and makes it a scenario: with
// overlay (a -scenario file's path) the overlay's settings and faults are
// laid over the fleet; without, the default fault applies.
func loadFleetRun(path, overlay string, rules ...fleetRules) (*fleetRun, error) {
	f, err := karmadafleet.Load(path)
	var inputErrs karmadafleet.InputErrors
	switch {
	case errors.As(err, &inputErrs):
		return nil, errFlag("fleet", err) // each names its file
	case err != nil:
		return nil, errFlag("fleet", err)
	}
	var overlayData []byte
	if overlay != "" {
		if overlayData, err = readScenarioFile(overlay); err != nil {
			return nil, errFlag("scenario", err)
		}
	}
	run, err := buildFleetRun(f, path, overlay, overlayData, rules...)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			return nil, errFlag("scenario", err)
		}
		return nil, errFlag("fleet", err)
	}
	return run, nil
}

// scenario parses the run's scenario.
func (run *fleetRun) scenario() (*Scenario, error) {
	sc, err := parseFleetScenario(run, run.overlay, run.overlayData)
	if err != nil && run.overlay != "" {
		return nil, errFlag("scenario", err)
	}
	return sc, errFlag("fleet", err)
}

// buildFleetRun makes the scenario for fleet f read from path, with the
// -scenario file overlay (data overlayData) laid over it when named.
//
// rules, when given, says which rules the run models; the default is
// Karmada's, with every karmada-controller-manager flag at its default.
func buildFleetRun(f *karmadafleet.Fleet, path, overlay string, overlayData []byte, rules ...fleetRules) (*fleetRun, error) {
	run := &fleetRun{Label: "fleet " + path, Fleet: f, Findings: slices.Clone(f.Findings), overlay: overlay, overlayData: overlayData, Rules: RulesKarmada}
	if len(rules) > 0 {
		run.Rules, run.Karmada = rules[0].Rules, rules[0].Karmada
	}
	if run.Karmada == nil {
		k, err := parseKarmadaFlags("")
		if err != nil {
			return nil, err
		}
		run.Karmada = k
	}
	if len(f.Clusters) == 0 {
		return nil, fmt.Errorf("%s: %w: no Cluster (cluster.karmada.io/v1alpha1) in the input", path, karmadafleet.ErrInvalidInput)
	}
	gen := genScenario{
		Name:     "fleet",
		Seed:     1,
		Duration: fleetRunDuration.String(),
		Step:     "5s",
	}
	settings, err := run.Karmada.settings(run.Rules, f, func(n string) { run.Notes = append(run.Notes, n) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	gen.Settings = settings
	files := map[karmadafleet.Ref]string{}
	for _, c := range f.Clusters {
		files[karmadafleet.Ref{Kind: karmadafleet.KindCluster, Name: c.Name}] = c.File
	}
	for _, p := range f.Policies {
		files[p.Ref] = p.File
	}
	for _, w := range f.Workloads {
		files[w.Binding] = w.File
	}
	note := func(ref karmadafleet.Ref, p *field.Path, format string, args ...any) {
		fd := karmadafleet.Finding{File: files[ref], Object: ref, Message: fmt.Sprintf(format, args...)}
		if p != nil {
			fd.Field = p.String()
		}
		run.Findings = append(run.Findings, fd)
	}
	known := map[string]karmadafleet.Cluster{}
	var initial []genFault
	for _, c := range f.Clusters {
		ref := karmadafleet.Ref{Kind: karmadafleet.KindCluster, Name: c.Name}
		gc := genCluster{Name: c.Name, Zone: c.Zone, Region: c.Region, SyncMode: c.SyncMode}
		switch {
		case gc.Zone == "" && len(c.Zones) > 0:
			gc.Zone = c.Zones[0]
			if len(c.Zones) > 1 {
				note(ref, field.NewPath("spec", "zones"), "a cluster in several zones is not modelled: it is simulated in %s", gc.Zone)
			}
		case gc.Zone == "":
			gc.Zone = c.Name
			note(ref, field.NewPath("spec", "zone"), "no zone: the cluster is simulated in a zone of its own, named after it")
		}
		// Every taint stays, those the taint manager owns included: they
		// keep the scheduler off a cluster that is not Ready at the start,
		// and the taint manager removes them once it sees it Ready.
		for i, t := range c.Taints {
			if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
				note(ref, field.NewPath("spec", "taints").Index(i).Child("key"), "%q is not a valid taint key (%s); the taint is left out", t.Key, errs[0])
				continue
			}
			gc.Taints = append(gc.Taints, TaintSpec{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
		}
		switch c.Ready {
		case "True":
		case "False":
			initial = append(initial, genFault{At: "0s", Type: FaultNotReady, Cluster: c.Name})
		case "Unknown":
			initial = append(initial, genFault{At: "0s", Type: FaultPartition, Cluster: c.Name})
		default:
			note(ref, field.NewPath("status", "conditions"), "no Ready condition: the cluster is simulated Ready")
		}
		known[c.Name] = c
		gen.Clusters = append(gen.Clusters, gc)
	}
	names := workloadNames(f.Workloads)
	load := map[string]int{}
	for i := range f.Workloads {
		w := &f.Workloads[i]
		gw, ok := genWorkloadOf(w, names[i], f, known, note)
		if !ok {
			run.Left = append(run.Left, w.Binding)
			continue
		}
		for _, t := range gw.Clusters {
			load[t.Name]++
		}
		gen.Workloads = append(gen.Workloads, gw)
		// A copy the binding's status shows Unhealthy is failing from the
		// start; until a workloadHealthy fault, it stays so.
		for j, st := range w.Status {
			if st.Health != "Unhealthy" {
				continue
			}
			if _, ok := known[st.ClusterName]; !ok {
				note(w.Binding, field.NewPath("status", "aggregatedStatus").Index(j).Child("clusterName"), "cluster %q is not in the input; left out", st.ClusterName)
				continue
			}
			initial = append(initial, genFault{At: "0s", Type: FaultWorkloadUnhealthy, Cluster: st.ClusterName, Workload: gw.Name})
		}
		sb := simulatedBinding{Name: gw.Name, Binding: w.Binding, Policy: w.Policy}
		for _, b := range []struct {
			name string
			from bool
		}{{"placement", w.PlacementFromPolicy}, {"failover", w.FailoverFromPolicy}, {"suspension", w.SuspensionFromPolicy}} {
			if b.from {
				sb.FromPolicy = append(sb.FromPolicy, b.name)
			}
		}
		run.Simulated = append(run.Simulated, sb)
	}
	gen.Description = fmt.Sprintf("Karmada export %s: %d clusters, %d workloads", path, len(gen.Clusters), len(gen.Workloads))
	if len(run.Left) > 0 {
		gen.Description += fmt.Sprintf(" (%d bindings left out)", len(run.Left))
	}
	gen.Faults = initial
	for _, g := range initial {
		run.standing = append(run.standing, FaultSpec{Type: g.Type, Cluster: g.Cluster, Workload: g.Workload})
	}
	if c := busiestReady(f.Clusters, load); c != "" {
		gen.Faults = append([]genFault{{At: fleetOutageAt.String(), Type: FaultOutage, Cluster: c, For: fleetOutageFor.String()}}, initial...)
		run.DefaultFault = fmt.Sprintf("%s (running the most workloads) is down from %s for %s", c, fleetOutageAt, fleetOutageFor)
	}
	data, err := sigsyaml.Marshal(gen)
	if err != nil {
		return nil, err
	}
	if overlay != "" {
		run.Label = overlay + " over fleet " + path
		var faultsGiven bool
		if data, faultsGiven, err = layOver(data, overlay, overlayData, run.standing); err != nil {
			return nil, err
		}
		if faultsGiven {
			run.DefaultFault = ""
		}
	}
	run.Data = data
	return run, nil
}

// workloadNames names each workload by its resource, namespace/name (name
// alone when cluster-scoped), adding the kind where two resources share it.
func workloadNames(ws []karmadafleet.Workload) []string {
	base := func(w *karmadafleet.Workload) string {
		if w.Resource.Namespace == "" {
			return w.Resource.Name
		}
		return w.Resource.Namespace + "/" + w.Resource.Name
	}
	count := map[string]int{}
	for i := range ws {
		count[base(&ws[i])]++
	}
	withKind := map[string]int{}
	out := make([]string, len(ws))
	for i := range ws {
		out[i] = base(&ws[i])
		if count[out[i]] > 1 {
			out[i] += " (" + ws[i].Resource.Kind + ")"
			withKind[out[i]]++
		}
	}
	// Two bindings of one resource: each is named by its binding too.
	for i := range ws {
		if withKind[out[i]] > 1 {
			out[i] = base(&ws[i]) + " (" + ws[i].Binding.String() + ")"
		}
	}
	return out
}

// busiestReady is the Ready cluster placed the most workloads (ties by
// name), or the first Ready cluster when no workload is placed.
func busiestReady(clusters []karmadafleet.Cluster, load map[string]int) string {
	best := ""
	for _, c := range clusters {
		if c.Ready != "True" && c.Ready != "" {
			continue
		}
		if best == "" || load[c.Name] > load[best] {
			best = c.Name
		}
	}
	return best
}

// genWorkloadOf makes w's scenario workload, or reports why it is left out.
func genWorkloadOf(w *karmadafleet.Workload, name string, f *karmadafleet.Fleet, known map[string]karmadafleet.Cluster,
	note func(karmadafleet.Ref, *field.Path, string, ...any)) (genWorkload, bool) {
	spec := field.NewPath("spec")
	ref := w.Binding
	// A block from the policy is reported against the policy.
	placementRef, placementPath := ref, spec.Child("placement")
	if w.PlacementFromPolicy {
		placementRef = *w.Policy
	}
	failoverRef, failoverPath := ref, spec.Child("failover")
	if w.FailoverFromPolicy {
		failoverRef = *w.Policy
	}
	gw := genWorkload{Name: name, Kind: w.Resource.Kind, Replicas: w.Replicas}
	switch {
	case w.Replicas == 0:
		note(ref, spec.Child("replicas"), "%s %s has no replicas: only workloads with replicas are simulated; left out", w.Resource.Kind, name)
		return gw, false
	case w.Replicas > 100000:
		note(ref, spec.Child("replicas"), "%d replicas: the simulator runs at most 100000; left out", w.Replicas)
		return gw, false
	}
	if !slices.Contains(knownKinds, gw.Kind) {
		note(ref, spec.Child("resource", "kind"), "%s is simulated as a Deployment (replicas and readiness)", gw.Kind)
		gw.Kind = "Deployment"
	}
	pl := w.Placement
	if pl == nil {
		pl = &karmadafleet.Placement{}
	}
	divided := pl.ReplicaScheduling != nil && pl.ReplicaScheduling.ReplicaSchedulingType == "Divided"
	gw.Placement.ReplicaScheduling.ReplicaSchedulingType = "Duplicated"
	if divided {
		gw.Placement.ReplicaScheduling.ReplicaSchedulingType = "Divided"
	}
	// Affinity: the clusters it selects, by name.
	if aff := pl.ClusterAffinity; aff != nil {
		affPath := placementPath.Child("clusterAffinity")
		sel, err := selectClusters(f, *aff)
		if err != nil {
			note(placementRef, affPath, "cannot be evaluated (%v); left out", err)
			return gw, false
		}
		if len(sel) == 0 {
			note(placementRef, affPath, "selects no cluster of the input; left out")
			return gw, false
		}
		if len(sel) < len(f.Clusters) {
			gw.Placement.ClusterAffinity = &genAffinity{ClusterNames: sel}
		}
	}
	// Affinity groups, in order, each by the clusters it selects. A group
	// that selects none could never place: it is left out.
	if pl.ClusterAffinity == nil {
		for i := range pl.ClusterAffinities {
			term, termPath := &pl.ClusterAffinities[i], placementPath.Child("clusterAffinities").Index(i)
			sel, err := selectClusters(f, term.ClusterAffinity)
			if err != nil {
				note(placementRef, termPath, "cannot be evaluated (%v); left out", err)
				return gw, false
			}
			if len(sel) == 0 {
				note(placementRef, termPath, "affinity group %q selects no cluster of the input; the group is left out", term.AffinityName)
				continue
			}
			gw.Placement.ClusterAffinities = append(gw.Placement.ClusterAffinities, genAffinityTerm{AffinityName: term.AffinityName, ClusterNames: sel})
		}
		if len(pl.ClusterAffinities) > 0 && len(gw.Placement.ClusterAffinities) == 0 {
			note(placementRef, placementPath.Child("clusterAffinities"), "no affinity group selects a cluster of the input; left out")
			return gw, false
		}
		// The group the scheduler placed by. Karmada tries it and the
		// groups after it; when it was left out, the first of those kept
		// is where the simulation starts.
		if name := w.ObservedAffinityName; name != "" {
			// A name of no term means the first, as in Karmada.
			observed := max(0, slices.IndexFunc(pl.ClusterAffinities, func(t karmadafleet.ClusterAffinityTerm) bool { return t.AffinityName == name }))
			for _, t := range pl.ClusterAffinities[observed:] {
				if slices.ContainsFunc(gw.Placement.ClusterAffinities, func(g genAffinityTerm) bool { return g.AffinityName == t.AffinityName }) {
					gw.AffinityGroup = t.AffinityName
					break
				}
			}
			if gw.AffinityGroup == "" {
				note(ref, field.NewPath("status", "schedulerObservingAffinityName"), "no affinity group from %q on selects a cluster of the input; left out", name)
				return gw, false
			}
		}
	}
	if len(pl.ClusterTolerations) > 0 {
		gw.Placement.ClusterTolerations = pl.ClusterTolerations
	}
	// Spread: by cluster, zone and region; the reader reported the others.
	if divided && len(pl.SpreadConstraints) > 0 {
		note(placementRef, placementPath.Child("spreadConstraints"), "Karmada's scheduler ignores the spread constraints of a division by static weight or by none, and so does the simulation")
	}
	seen := map[string]bool{}
	for i, sc := range pl.SpreadConstraints {
		by := sc.SpreadByField
		if by == "" && sc.SpreadByLabel == "" {
			by = SpreadByCluster
		}
		if by != SpreadByCluster && by != SpreadByZone && by != SpreadByRegion {
			continue
		}
		if seen[by] {
			note(placementRef, placementPath.Child("spreadConstraints").Index(i), "a second %s spread constraint; ignored", by)
			continue
		}
		seen[by] = true
		if sc.MinGroups < 0 || sc.MaxGroups < 0 || (sc.MaxGroups > 0 && sc.MinGroups > sc.MaxGroups) {
			note(placementRef, placementPath.Child("spreadConstraints").Index(i), "minGroups %d, maxGroups %d are not a range; ignored", sc.MinGroups, sc.MaxGroups)
			seen[by] = false
			continue
		}
		gw.Placement.SpreadConstraints = append(gw.Placement.SpreadConstraints, genSpread{SpreadByField: by, MinGroups: sc.MinGroups, MaxGroups: sc.MaxGroups})
	}
	for _, by := range [...]string{SpreadByRegion, SpreadByZone} {
		if seen[by] && !seen[SpreadByCluster] {
			note(placementRef, placementPath.Child("spreadConstraints"), "a %s spread constraint without a cluster one (Karmada requires both); the %s constraint is ignored", by, by)
			gw.Placement.SpreadConstraints = slices.DeleteFunc(gw.Placement.SpreadConstraints, func(s genSpread) bool { return s.SpreadByField == by })
		}
	}
	// Static weights, each rule's clusters by name.
	if rs := pl.ReplicaScheduling; rs != nil && rs.WeightPreference != nil && len(rs.WeightPreference.StaticWeightList) > 0 {
		wp := placementPath.Child("replicaScheduling", "weightPreference")
		if !divided {
			note(placementRef, wp, "weights apply to a Divided workload only; ignored")
		} else {
			var rules []genStaticWeight
			for i, sw := range rs.WeightPreference.StaticWeightList {
				rp := wp.Child("staticWeightList").Index(i)
				if sw.Weight <= 0 || sw.Weight > scheduling.MaxStaticWeight {
					note(placementRef, rp.Child("weight"), "weight %d is out of range; the rule is ignored", sw.Weight)
					continue
				}
				sel, err := selectClusters(f, sw.TargetCluster)
				if err != nil {
					note(placementRef, rp.Child("targetCluster"), "cannot be evaluated (%v); the rule is ignored", err)
					continue
				}
				if len(sel) > 0 {
					rules = append(rules, genStaticWeight{TargetCluster: genAffinity{ClusterNames: sel}, Weight: sw.Weight})
				}
			}
			if len(rules) > 0 {
				gw.Placement.ReplicaScheduling.WeightPreference = &genWeightPreferred{StaticWeightList: rules}
			}
		}
	}
	// The placement the scheduler last wrote.
	for i, t := range w.Clusters {
		if _, ok := known[t.Name]; !ok {
			note(ref, spec.Child("clusters").Index(i).Child("name"), "cluster %q is not in the input; this target is left out", t.Name)
			continue
		}
		gt := genTarget{Name: t.Name}
		if divided {
			gt.Replicas = min(t.Replicas, w.Replicas)
		}
		gw.Clusters = append(gw.Clusters, gt)
	}
	if w.Failover != nil {
		lib, err := libraryFailover(w.Failover)
		if err == nil {
			if errs := failover.ValidateFailoverBehavior(lib, failoverPath); len(errs) > 0 {
				err = errs.ToAggregate()
			}
		}
		if err != nil {
			note(failoverRef, failoverPath, "cannot be simulated (%v); left out", err)
			return gw, false
		}
		gw.Failover = w.Failover
	}
	if s := w.Suspension; s != nil {
		gw.SchedulingSuspended = !w.SuspensionFromPolicy && s.Scheduling != nil && *s.Scheduling
		gs := &karmadafleet.Suspension{Dispatching: s.Dispatching}
		if s.DispatchingOnClusters != nil {
			var on []string
			for i, n := range s.DispatchingOnClusters.ClusterNames {
				if _, ok := known[n]; ok {
					on = append(on, n)
					continue
				}
				suspRef := ref
				if w.SuspensionFromPolicy {
					suspRef = *w.Policy
				}
				note(suspRef, spec.Child("suspension", "dispatchingOnClusters", "clusterNames").Index(i), "cluster %q is not in the input; left out", n)
			}
			if len(on) > 0 {
				gs.DispatchingOnClusters = &karmadafleet.SuspendClusters{ClusterNames: on}
			}
		}
		if gs.Dispatching != nil || gs.DispatchingOnClusters != nil {
			gw.Suspension = gs
		}
	}
	// A stateful job keeps the id its copy reports.
	if gw.Kind == "FlinkDeployment" {
		for _, st := range w.Status {
			js, _ := st.Status["jobStatus"].(map[string]any)
			if id, ok := js["jobId"].(string); ok && id != "" && slices.ContainsFunc(gw.Clusters, func(g genTarget) bool { return g.Name == st.ClusterName }) {
				gw.State = map[string]string{"jobId": id}
				break
			}
		}
	}
	// Evictions in flight: kept when the cluster they leave is known and
	// not placed again, and the task is one the library accepts.
	for i, t := range w.EvictionTasks {
		tp := spec.Child("gracefulEvictionTasks").Index(i)
		if _, ok := known[t.FromCluster]; !ok {
			note(ref, tp.Child("fromCluster"), "cluster %q is not in the input; the eviction is left out", t.FromCluster)
			continue
		}
		if slices.ContainsFunc(gw.Clusters, func(g genTarget) bool { return g.Name == t.FromCluster }) {
			note(ref, tp.Child("fromCluster"), "the workload is placed on %s again; the eviction is left out", t.FromCluster)
			continue
		}
		if slices.ContainsFunc(gw.EvictionTasks, func(g karmadafleet.GracefulEvictionTask) bool { return g.FromCluster == t.FromCluster }) {
			note(ref, tp.Child("fromCluster"), "a second eviction from %s; left out", t.FromCluster)
			continue
		}
		var lib eviction.GracefulEvictionTask
		js, err := sigsyaml.Marshal(t)
		if err == nil {
			err = sigsyaml.UnmarshalStrict(js, &lib)
		}
		if err == nil {
			err = eviction.ValidateGracefulEvictionTask(&lib, tp).ToAggregate()
		}
		if err != nil {
			note(ref, tp, "cannot be simulated (%v); the eviction is left out", err)
			continue
		}
		t.CreationTimestamp = nil // the simulation starts its grace period again
		gw.EvictionTasks = append(gw.EvictionTasks, t)
	}
	return gw, true
}

// libraryFailover converts a failover block to the library's type, which
// reads Karmada's field names.
func libraryFailover(fb *karmadafleet.FailoverBehavior) (*failover.FailoverBehavior, error) {
	js, err := sigsyaml.Marshal(fb)
	if err != nil {
		return nil, err
	}
	var out failover.FailoverBehavior
	if err := sigsyaml.UnmarshalStrict(js, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// selectClusters lists, by name, the clusters of f that a selects.
func selectClusters(f *karmadafleet.Fleet, a karmadafleet.ClusterAffinity) ([]string, error) {
	var out []string
	for _, c := range f.Clusters {
		ok, err := c.Matches(a)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, c.Name)
		}
	}
	return out, nil
}

// layOver lays the -scenario file (overlay, read as data) over the fleet's
// scenario gen: its name, description, seed, duration, step and settings
// replace the fleet's, and its faults, when it gives some, replace the
// default fault (the faults standing for the export's state stay, after
// the file's own so that faults[i] keeps its index). The fleet comes from
// the export: clusters and workloads in the file are an error.
func layOver(gen []byte, overlay string, data []byte, standing []FaultSpec) (out []byte, faultsGiven bool, err error) {
	if len(data) > maxScenarioBytes {
		return nil, false, &ParseError{Errors: []ScenarioError{{File: overlay, Msg: fmt.Sprintf("file is larger than %d bytes", maxScenarioBytes)}}}
	}
	var ov yaml.Node
	if err := yaml.Unmarshal(data, &ov); err != nil {
		return nil, false, &ParseError{Errors: []ScenarioError{{File: overlay, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}}}
	}
	if len(ov.Content) == 0 {
		return gen, false, nil
	}
	om := ov.Content[0]
	if om.Kind != yaml.MappingNode {
		return nil, false, &ParseError{Errors: []ScenarioError{{File: overlay, Line: om.Line, Msg: "a scenario laid over -fleet is a mapping of " + strings.Join(fleetOverlayKeys, ", ")}}}
	}
	var g yaml.Node
	if err := yaml.Unmarshal(gen, &g); err != nil {
		return nil, false, err
	}
	gm := g.Content[0]
	var errs []ScenarioError
	for i := 0; i+1 < len(om.Content); i += 2 {
		k, v := om.Content[i], om.Content[i+1]
		switch {
		case k.Value == "clusters" || k.Value == "workloads":
			errs = append(errs, ScenarioError{File: overlay, Line: k.Line, Field: k.Value, Msg: "the fleet comes from -fleet; a scenario laid over it gives " + strings.Join(fleetOverlayKeys, ", ")})
		case !slices.Contains(fleetOverlayKeys, k.Value):
			errs = append(errs, ScenarioError{File: overlay, Line: k.Line, Field: k.Value, Msg: fmt.Sprintf("unknown field %q", k.Value)})
		case k.Value == "settings" && v.Kind == yaml.MappingNode:
			// The file's settings go over the fleet's one by one: the
			// rules and flags stay unless the file sets them.
			if gs := mapValue(gm, "settings"); gs != nil && gs.Kind == yaml.MappingNode {
				for j := 0; j+1 < len(v.Content); j += 2 {
					setKey(gs, v.Content[j].Value, v.Content[j+1])
				}
			} else {
				setKey(gm, k.Value, v)
			}
		case k.Value == "faults":
			if v.Kind != yaml.SequenceNode {
				errs = append(errs, ScenarioError{File: overlay, Line: v.Line, Field: "faults", Msg: "a list of faults"})
				continue
			}
			merged := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: slices.Clone(v.Content)}
			if len(standing) > 0 {
				var st yaml.Node
				if err := st.Encode(standing); err != nil {
					return nil, false, err
				}
				merged.Content = append(merged.Content, st.Content...)
			}
			setKey(gm, "faults", merged)
			faultsGiven = true
		default:
			setKey(gm, k.Value, v)
		}
	}
	if len(errs) > 0 {
		return nil, false, &ParseError{Errors: errs}
	}
	out, err = yaml.Marshal(&g)
	return out, faultsGiven, err
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// parseFleetScenario parses run's scenario. An error in a part the
// -scenario file gave is located in that file (field paths keep their
// indices: its faults come first).
func parseFleetScenario(run *fleetRun, overlay string, overlayData []byte) (*Scenario, error) {
	sc, err := ParseScenario(run.Label, run.Data)
	if err == nil {
		return sc, nil
	}
	var pe *ParseError
	if overlay == "" || !errors.As(err, &pe) {
		return nil, err
	}
	var root yaml.Node
	if yaml.Unmarshal(overlayData, &root) != nil {
		return nil, err
	}
	ix := buildIndex(&root)
	for i := range pe.Errors {
		se := &pe.Errors[i]
		if se.Field == "" {
			continue
		}
		if _, ok := ix.keys[se.Field]; ok || ix.byPath[se.Field] != nil {
			se.File, se.Line = overlay, ix.line(se.Field)
		}
	}
	return nil, pe
}

// printFindings writes what the export holds that the simulation does not
// carry, grouped by object.
func (run *fleetRun) printFindings(w io.Writer) {
	f := run.Fleet
	fmt.Fprintf(w, "FLEET  %s: %d clusters, %d bindings (%d simulated, %d left out), %d policies\n",
		run.Label, len(f.Clusters), len(f.Workloads), len(f.Workloads)-len(run.Left), len(run.Left), len(f.Policies))
	if run.DefaultFault != "" {
		fmt.Fprintf(w, "  default fault: %s\n", run.DefaultFault)
	}
	for _, sb := range run.Simulated {
		from := sb.Binding.String()
		if sb.Policy != nil {
			from += ", policy " + sb.Policy.String()
			if len(sb.FromPolicy) > 0 {
				from += " (its " + strings.Join(sb.FromPolicy, ", ") + ")"
			}
		}
		fmt.Fprintf(w, "  workload %s: %s\n", sb.Name, from)
	}
	if len(run.Findings) == 0 {
		fmt.Fprintln(w, "  everything in the export is modelled")
		return
	}
	fmt.Fprintf(w, "  not modelled or changed for the simulation (%d):\n", len(run.Findings))
	byObject := map[string][]karmadafleet.Finding{}
	var order []string
	for _, fd := range run.Findings {
		k := fd.Object.String() + " (" + fd.File + ")"
		if _, ok := byObject[k]; !ok {
			order = append(order, k)
		}
		byObject[k] = append(byObject[k], fd)
	}
	sort.Strings(order)
	for _, k := range order {
		fmt.Fprintf(w, "    %s\n", k)
		for _, fd := range byObject[k] {
			if fd.Field != "" {
				fmt.Fprintf(w, "      %s: %s\n", fd.Field, fd.Message)
			} else {
				fmt.Fprintf(w, "      %s\n", fd.Message)
			}
		}
	}
}

// loadScenarioOrFleet loads the scenario a run asks for: from -fleet (its
// findings printed first, on stderr when stdout carries JSON), else from
// -scenario or the embedded one. rules are -rules (-fleet only).
func loadScenarioOrFleet(cfg config, rules string, stdout, stderr io.Writer) (*Scenario, *fleetRun, error) {
	if cfg.fleet == "" {
		sc, err := loadScenario(cfg.scenario)
		return sc, nil, err
	}
	run, err := loadFleetRun(cfg.fleet, cfg.scenario, cfg.fleetRules(rules))
	if err != nil {
		return nil, nil, err
	}
	sc, err := run.scenario()
	if err != nil {
		return nil, nil, err
	}
	return sc, run, nil
}

// fleetRules are the rules a -fleet run models: rules (Karmada's when
// empty) with -karmada-flags.
func (cfg config) fleetRules(rules string) fleetRules {
	if rules == "" {
		rules = RulesKarmada
	}
	return fleetRules{Rules: rules, Karmada: cfg.karmada}
}

// printHeader writes what a run models: for a -fleet run, the export's
// findings, the Karmada command line and the assumptions; for every run,
// the rules.
func printHeader(w io.Writer, sc *Scenario, run *fleetRun) {
	if run != nil {
		run.printFindings(w)
		fmt.Fprintln(w)
	}
	for _, l := range describeRules(sc.Settings) {
		fmt.Fprintln(w, l)
	}
	if run == nil {
		return
	}
	if run.Rules == RulesKarmada {
		for _, l := range run.Karmada.describeFlags() {
			fmt.Fprintln(w, "  "+l)
		}
	} else if run.Karmada.Line != "" {
		fmt.Fprintf(w, "  karmada-controller-manager flags (-karmada-flags): %s; fleetover takes their thresholds, grace periods, eviction rate and purge mode\n", run.Karmada.Line)
	}
	for _, n := range run.Notes {
		fmt.Fprintln(w, "  "+n)
	}
	for _, a := range fleetAssumptions() {
		fmt.Fprintln(w, "  "+a)
	}
}

// withStandingFaults adds the faults standing for the export's state to a
// campaign schedule's scenario data, whose faults are random.
func (run *fleetRun) withStandingFaults(data []byte) ([]byte, error) {
	if len(run.standing) == 0 {
		return data, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a scenario mapping", run.Label)
	}
	var standing yaml.Node
	if err := standing.Encode(run.standing); err != nil {
		return nil, err
	}
	m := root.Content[0]
	faults := mapValue(m, "faults")
	if faults == nil || faults.Kind != yaml.SequenceNode {
		setKey(m, "faults", &standing)
	} else {
		faults.Content = append(faults.Content, standing.Content...)
	}
	return yaml.Marshal(&root)
}
