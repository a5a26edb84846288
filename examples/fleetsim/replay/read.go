package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxFixtureBytes bounds what Read accepts: fixtures are a few kilobytes.
const maxFixtureBytes = 4 << 20

// Read decodes and validates a fixture. Unknown fields are errors, so a
// fixture written by a newer simulator is never half read.
func Read(r io.Reader) (*Fixture, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFixtureBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFixtureBytes {
		return nil, fmt.Errorf("replay fixture: larger than %d bytes", maxFixtureBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f Fixture
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("replay fixture: %w", err)
	}
	if dec.More() {
		return nil, errors.New("replay fixture: data after the fixture")
	}
	if errs := Validate(&f); len(errs) > 0 {
		return nil, fmt.Errorf("replay fixture %q: %w", f.Scenario, errs.ToAggregate())
	}
	return &f, nil
}

// Write encodes f, indented, for a file under version control.
func Write(w io.Writer, f *Fixture) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Validate checks what the replay relies on: the version, positive step
// and duration, unique cluster and workload names, and that every
// placement, fault and eviction names a known cluster and workload.
func Validate(f *Fixture) field.ErrorList {
	var errs field.ErrorList
	if f.Version != Version {
		errs = append(errs, field.NotSupported(field.NewPath("version"), f.Version, []string{Version}))
	}
	if f.Step.Duration <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("step"), f.Step.Duration.String(), "must be positive"))
	}
	if f.Duration.Duration < f.Step.Duration {
		errs = append(errs, field.Invalid(field.NewPath("duration"), f.Duration.Duration.String(), "must be at least one step"))
	}
	clusters := map[string]bool{}
	for i, c := range f.Clusters {
		p := field.NewPath("clusters").Index(i)
		errs = append(errs, newName(p.Child("name"), c.Name, clusters)...)
		if c.SyncMode != "Push" && c.SyncMode != "Pull" {
			errs = append(errs, field.NotSupported(p.Child("syncMode"), c.SyncMode, []string{"Push", "Pull"}))
		}
	}
	knownCluster := func(p *field.Path, name string) {
		if !clusters[name] {
			errs = append(errs, field.NotFound(p, name))
		}
	}
	workloads := map[string]bool{}
	for i, w := range f.Workloads {
		p := field.NewPath("workloads").Index(i)
		errs = append(errs, newName(p.Child("name"), w.Name, workloads)...)
		if w.Replicas < 0 {
			errs = append(errs, field.Invalid(p.Child("replicas"), w.Replicas, "must not be negative"))
		}
		for j, name := range w.ClusterNames {
			knownCluster(p.Child("clusterNames").Index(j), name)
		}
		if len(w.ClusterNames) > 0 && len(w.AffinityGroups) > 0 {
			errs = append(errs, field.Forbidden(p.Child("affinityGroups"), "clusterNames and affinityGroups exclude each other"))
		}
		groups := map[string]bool{}
		for j, g := range w.AffinityGroups {
			gp := p.Child("affinityGroups").Index(j)
			errs = append(errs, newName(gp.Child("name"), g.Name, groups)...)
			for k, name := range g.ClusterNames {
				knownCluster(gp.Child("clusterNames").Index(k), name)
			}
		}
		if w.AffinityGroup != "" && !groups[w.AffinityGroup] {
			errs = append(errs, field.NotFound(p.Child("affinityGroup"), w.AffinityGroup))
		}
		for _, name := range slices.Sorted(maps.Keys(w.StaticWeights)) {
			knownCluster(p.Child("staticWeights").Key(name), name)
			if w.StaticWeights[name] <= 0 {
				errs = append(errs, field.Invalid(p.Child("staticWeights").Key(name), w.StaticWeights[name], "must be positive"))
			}
		}
		for j, tc := range w.Initial {
			knownCluster(p.Child("initial").Index(j).Child("name"), tc.Name)
		}
		for j, tc := range w.Final {
			knownCluster(p.Child("final").Index(j).Child("name"), tc.Name)
		}
	}
	knownWorkload := func(p *field.Path, name string) {
		if !workloads[name] {
			errs = append(errs, field.NotFound(p, name))
		}
	}
	types := []string{FaultOutage, FaultNotReady, FaultPartition, FaultPartitionOnPurge, FaultRecover, FaultWorkloadUnhealthy, FaultWorkloadHealthy, FaultRestart,
		FaultSuspend, FaultResume, FaultSuspendScheduling, FaultResumeScheduling}
	for i, ft := range f.Faults {
		p := field.NewPath("faults").Index(i)
		if !slices.Contains(types, ft.Type) {
			errs = append(errs, field.NotSupported(p.Child("type"), ft.Type, types))
		}
		if ft.At.Duration < 0 || ft.At.Duration > f.Duration.Duration {
			errs = append(errs, field.Invalid(p.Child("at"), ft.At.Duration.String(), "must be within the run"))
		}
		if ft.Cluster != "" {
			knownCluster(p.Child("cluster"), ft.Cluster)
		}
		if ft.Workload != "" {
			knownWorkload(p.Child("workload"), ft.Workload)
		}
		switch {
		case ft.Type != FaultPartitionOnPurge && ft.For != nil:
			errs = append(errs, field.Forbidden(p.Child("for"), "only a partitionOnPurge fault has a length; the others end with a recover fault"))
		case ft.Type == FaultPartitionOnPurge && (ft.For == nil || ft.For.Duration <= 0):
			errs = append(errs, field.Required(p.Child("for"), "a partition on purge needs a positive length"))
		}
		if (ft.Type == FaultPartition || ft.Type == FaultPartitionOnPurge) && ft.Cluster == "" {
			errs = append(errs, field.Required(p.Child("cluster"), "a partition cuts off one cluster"))
		}
		if (ft.Type == FaultSuspendScheduling || ft.Type == FaultResumeScheduling) && ft.Workload == "" {
			errs = append(errs, field.Required(p.Child("workload"), "scheduling is suspended for one workload"))
		}
		if (ft.Type == FaultSuspend || ft.Type == FaultResume) && ft.Workload == "" {
			errs = append(errs, field.Required(p.Child("workload"), "dispatching is suspended for one workload"))
		}
	}
	for i, ev := range f.Evictions {
		p := field.NewPath("evictions").Index(i)
		knownWorkload(p.Child("workload"), ev.Workload)
		knownCluster(p.Child("cluster"), ev.Cluster)
		if i > 0 && ev.At.Duration < f.Evictions[i-1].At.Duration {
			errs = append(errs, field.Invalid(p.Child("at"), ev.At.Duration.String(), "evictions must be in time order"))
		}
	}
	for i, in := range f.Injections {
		p := field.NewPath("injections").Index(i)
		knownWorkload(p.Child("workload"), in.Workload)
		knownCluster(p.Child("cluster"), in.Cluster)
	}
	return errs
}

// newName checks that name is set and not in seen, then adds it.
func newName(p *field.Path, name string, seen map[string]bool) field.ErrorList {
	defer func() { seen[name] = true }()
	switch {
	case name == "":
		return field.ErrorList{field.Required(p, "")}
	case seen[name]:
		return field.ErrorList{field.Duplicate(p, name)}
	}
	return nil
}
