package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/suspension"
)

// Scenario is one simulated fleet: its clusters, the workloads propagated to
// them with their policies, and the faults that hit them over time.
type Scenario struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	Seed        int64          `yaml:"seed"`
	Duration    Duration       `yaml:"duration"`
	Step        Duration       `yaml:"step"`
	Settings    Settings       `yaml:"settings"`
	Clusters    []ClusterSpec  `yaml:"clusters"`
	Workloads   []WorkloadSpec `yaml:"workloads"`
	Faults      []FaultSpec    `yaml:"faults"`
}

// Settings are the controller flags of the simulated control plane. A zero
// value takes the documented default (see withDefaults).
type Settings struct {
	FailureThreshold         Duration           `yaml:"failureThreshold"`
	SuccessThreshold         Duration           `yaml:"successThreshold"`
	MonitorGracePeriod       Duration           `yaml:"monitorGracePeriod"`
	StartupGracePeriod       Duration           `yaml:"startupGracePeriod"`
	EvictionTimeout          Duration           `yaml:"evictionTimeout"`
	NoExecuteTaints          *bool              `yaml:"noExecuteTaints"`
	DefaultTolerationSeconds *int64             `yaml:"defaultTolerationSeconds"`
	GracefulEvictionTimeout  Duration           `yaml:"gracefulEvictionTimeout"`
	ClusterPurgeMode         eviction.PurgeMode `yaml:"clusterPurgeMode"`
	StartupDelay             Duration           `yaml:"startupDelay"`
	EvictionsPerSecond       float64            `yaml:"evictionsPerSecond"`
	PacePerZone              bool               `yaml:"pacePerZone"`
	CancelOnRecovery         bool               `yaml:"cancelOnRecovery"`
	StatefulInjection        *bool              `yaml:"statefulFailoverInjection"`
	// FenceAfter, when set, makes every Pull cluster's agent fence
	// (package fencing): it stops its single-writer copies this long after
	// its last lease renewal, declares so, and the control plane's Directly
	// escape waits for the fence. Zero: no agent fences.
	FenceAfter Duration `yaml:"fenceAfter"`
	// Rules are the control plane's rules: RulesFleetover (the library's
	// safe defaults) or RulesKarmada (what Karmada v1.17 and v1.18 do; see
	// karmadaRules). They change the defaults of the fields below and
	// above, and the behaviours no field names.
	Rules string `yaml:"rules"`
	// ClusterFailover: the taint manager evicts workloads that do not
	// tolerate a cluster's NoExecute taints. Karmada needs the Failover
	// feature gate, --enable-taint-manager and
	// --enable-no-execute-taint-eviction for it. Default true under
	// fleetover's rules, false under Karmada's.
	ClusterFailover *bool `yaml:"clusterFailover"`
	// DefaultTolerations: the not-ready and unreachable NoExecute
	// tolerations of defaultTolerationSeconds are added to every workload.
	// Karmada's webhook stopped adding them in v1.15. Default true under
	// fleetover's rules, false under Karmada's.
	DefaultTolerations *bool `yaml:"defaultTolerations"`
	// ClusterTaintPolicies add and remove taints on condition matches, as
	// Karmada's ClusterTaintPolicy objects do (its Failover gate on).
	ClusterTaintPolicies []TaintPolicySpec `yaml:"clusterTaintPolicies"`
}

// The control plane's rules a scenario runs under (settings.rules).
const (
	RulesFleetover = "fleetover"
	RulesKarmada   = "karmada"
)

// TaintPolicySpec is a ClusterTaintPolicy: when every addOnConditions match
// holds on a cluster it targets, its taints are added; when every
// removeOnConditions match holds, removed. Policies apply in name order.
type TaintPolicySpec struct {
	Name string `yaml:"name" json:"name"`
	// Clusters it targets; empty targets every cluster.
	Clusters           []string    `yaml:"clusters" json:"clusters,omitempty"`
	AddOnConditions    []MatchSpec `yaml:"addOnConditions" json:"addOnConditions"`
	RemoveOnConditions []MatchSpec `yaml:"removeOnConditions" json:"removeOnConditions,omitempty"`
	Taints             []TaintSpec `yaml:"taints" json:"taints"`
}

// MatchSpec tests one condition of a cluster: its status is In (or NotIn)
// the values.
type MatchSpec struct {
	ConditionType string   `yaml:"conditionType" json:"conditionType"`
	Operator      string   `yaml:"operator" json:"operator"`
	StatusValues  []string `yaml:"statusValues" json:"statusValues"`
}

// library converts p into the library's policy.
func (p TaintPolicySpec) library() failover.ConditionTaintPolicy {
	out := failover.ConditionTaintPolicy{Name: p.Name}
	conv := func(ms []MatchSpec) []failover.ConditionMatch {
		var out []failover.ConditionMatch
		for _, m := range ms {
			cm := failover.ConditionMatch{ConditionType: m.ConditionType, Operator: failover.MatchOperator(m.Operator)}
			for _, v := range m.StatusValues {
				cm.StatusValues = append(cm.StatusValues, metav1.ConditionStatus(v))
			}
			out = append(out, cm)
		}
		return out
	}
	out.AddOnConditions, out.RemoveOnConditions = conv(p.AddOnConditions), conv(p.RemoveOnConditions)
	for _, t := range p.Taints {
		out.Taints = append(out.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	return out
}

// karmada reports whether the settings are Karmada's rules.
func (s Settings) karmada() bool { return s.Rules == RulesKarmada }

// ClusterSpec is one member cluster.
type ClusterSpec struct {
	Name string `yaml:"name"`
	Zone string `yaml:"zone"`
	// Region is optional; only a spread by region reads it.
	Region   string `yaml:"region"`
	SyncMode string `yaml:"syncMode"`
	// Taints the cluster carries from the start (a maintenance taint, a
	// dedicated cluster); the taint manager adds and removes its own.
	Taints []TaintSpec `yaml:"taints"`
}

// TaintSpec is one taint of a cluster.
type TaintSpec struct {
	Key    string `yaml:"key" json:"key"`
	Value  string `yaml:"value" json:"value,omitempty"`
	Effect string `yaml:"effect" json:"effect"`
}

// WorkloadSpec is one workload with the policy that propagates it. The
// failover, suspension and clusterTolerations blocks are those of a
// PropagationPolicy and decode into the library's types.
type WorkloadSpec struct {
	Name       string            `yaml:"name"`
	Kind       string            `yaml:"kind"`
	Replicas   int32             `yaml:"replicas"`
	Placement  PlacementSpec     `yaml:"placement"`
	FailoverY  yaml.Node         `yaml:"failover"`
	Suspension yaml.Node         `yaml:"suspension"`
	State      map[string]string `yaml:"state"`
	// Clusters is the placement at the start, as a binding's
	// spec.clusters holds it (replicas count for a Divided workload
	// only); empty lets the scheduler place the workload.
	Clusters []TargetSpec `yaml:"clusters"`
	// AffinityGroup is the affinity group in use at the start, as a
	// binding's status.schedulerObservingAffinityName names the group
	// Karmada's scheduler last placed it by: placement and failover try
	// it and the groups after it, never an earlier one. Empty: the first
	// group that holds Clusters (the first group when none is given).
	AffinityGroup string `yaml:"affinityGroup"`
	// SchedulingSuspended: the workload's scheduling is suspended at the
	// start (a binding's spec.suspension.scheduling), as a third-party
	// admission webhook sets it in Karmada. Nothing re-places it until a
	// resumeScheduling fault.
	SchedulingSuspended bool `yaml:"schedulingSuspended"`
	// EvictionTasksY are graceful evictions in flight at the start, as a
	// binding's spec.gracefulEvictionTasks holds them: the workload is
	// leaving each task's cluster, where its old copy still runs.
	EvictionTasksY yaml.Node `yaml:"evictionTasks"`

	// Decoded from the raw blocks above by ParseScenario.
	Failover      *failover.FailoverBehavior      `yaml:"-"`
	Tolerations   []corev1.Toleration             `yaml:"-"`
	Suspend       *suspension.Suspension          `yaml:"-"`
	EvictionTasks []eviction.GracefulEvictionTask `yaml:"-"`
}

// TargetSpec is one cluster of a placement.
type TargetSpec struct {
	Name     string `yaml:"name"`
	Replicas int32  `yaml:"replicas"`
}

// PlacementSpec mirrors the placement block of a PropagationPolicy.
type PlacementSpec struct {
	ClusterAffinity *ClusterAffinity `yaml:"clusterAffinity"`
	// ClusterAffinities are ordered affinity groups (instead of
	// clusterAffinity), as Karmada's: the workload is placed in the first
	// group that has room, from the group in use on; a failover that finds
	// no room in the group in use moves the whole placement to the next
	// group that has, and a workload never goes back to an earlier group.
	ClusterAffinities  []ClusterAffinityTerm `yaml:"clusterAffinities"`
	ClusterTolerations yaml.Node             `yaml:"clusterTolerations"`
	SpreadConstraints  []SpreadConstraint    `yaml:"spreadConstraints"`
	ReplicaScheduling  ReplicaScheduling     `yaml:"replicaScheduling"`
}

// ClusterAffinity selects clusters by name and zone. As in Karmada, a
// cluster matches when clusterNames (if given) names it and zones (if
// given) lists its zone; an empty affinity matches every cluster.
type ClusterAffinity struct {
	ClusterNames []string `yaml:"clusterNames"`
	Zones        []string `yaml:"zones"`
}

// ClusterAffinityTerm is one named group of clusterAffinities.
type ClusterAffinityTerm struct {
	AffinityName    string `yaml:"affinityName"`
	ClusterAffinity `yaml:",inline"`
}

func (a ClusterAffinity) matches(c ClusterSpec) bool {
	return (len(a.ClusterNames) == 0 || slices.Contains(a.ClusterNames, c.Name)) &&
		(len(a.Zones) == 0 || slices.Contains(a.Zones, c.Zone))
}

// Values of SpreadConstraint.SpreadByField; empty means cluster.
const (
	SpreadByCluster = "cluster"
	SpreadByZone    = "zone"
	SpreadByRegion  = "region"
)

// SpreadConstraint bounds how many clusters (or zones, or regions) a
// workload spans. As in Karmada, a zone or region constraint needs a
// cluster constraint beside it, each field is constrained once, and a
// cluster without a region is no place for a workload spread by region.
type SpreadConstraint struct {
	SpreadByField string `yaml:"spreadByField"`
	MinGroups     int    `yaml:"minGroups"`
	MaxGroups     int    `yaml:"maxGroups"`
}

// ReplicaScheduling says whether every cluster runs all replicas
// (Duplicated) or the replicas are divided by static weight (Divided).
type ReplicaScheduling struct {
	ReplicaSchedulingType     string            `yaml:"replicaSchedulingType"`
	ReplicaDivisionPreference string            `yaml:"replicaDivisionPreference"`
	WeightPreference          *WeightPreference `yaml:"weightPreference"`
}

// WeightPreference lists static cluster weights.
type WeightPreference struct {
	StaticWeightList []StaticWeight `yaml:"staticWeightList"`
}

// StaticWeight gives the clusters TargetCluster matches a weight. As in
// Karmada, a cluster matched by several rules takes the highest weight, and
// a cluster no rule matches gets none and is left out of the division
// (unless no candidate has a weight: then every candidate weighs 1).
type StaticWeight struct {
	TargetCluster ClusterAffinity `yaml:"targetCluster"`
	Weight        int64           `yaml:"weight"`
}

// Fault types of a scenario's schedule.
const (
	FaultOutage            = "outage"            // the cluster's API server is down
	FaultNotReady          = "notReady"          // reachable, health endpoint fails
	FaultPartition         = "partition"         // cluster alive, unreachable from the control plane
	FaultFlap              = "flap"              // alternates down / up every period
	FaultZoneOutage        = "zoneOutage"        // every cluster of a zone is down
	FaultFleetOutage       = "fleetOutage"       // every cluster is unreachable
	FaultRecover           = "recover"           // clears faults of a cluster, a zone or the fleet
	FaultFlapReady         = "flapReady"         // alternates not ready (health fails) / unreachable every period
	FaultPartitionOnPurge  = "partitionOnPurge"  // the cluster becomes unreachable, for "for", the moment a copy on it starts being deleted
	FaultWorkloadUnhealthy = "workloadUnhealthy" // the workload fails on one cluster (every cluster when none is named)
	FaultWorkloadHealthy   = "workloadHealthy"   // the workload recovers on one cluster (every cluster when none is named)
	FaultStateUnreadable   = "stateUnreadable"   // the workload's collected status lacks its preserved state (the operator is reconciling)
	FaultStateReadable     = "stateReadable"     // its state can be read again
	FaultRestart           = "restart"           // controllers restart: trackers export and import their state
	FaultDelete            = "deleteWorkload"    // the user deletes the workload
	FaultSuspend           = "suspend"           // the user suspends dispatching of a workload (to one cluster or all)
	FaultResume            = "resume"            // the user resumes it
	// FaultSuspendScheduling: the workload's scheduling is suspended (a
	// binding's spec.suspension.scheduling); FaultResumeScheduling ends it.
	FaultSuspendScheduling = "suspendScheduling"
	FaultResumeScheduling  = "resumeScheduling"
)

var faultTypes = []string{FaultOutage, FaultNotReady, FaultPartition, FaultFlap, FaultFlapReady, FaultPartitionOnPurge,
	FaultZoneOutage, FaultFleetOutage, FaultRecover, FaultWorkloadUnhealthy, FaultWorkloadHealthy,
	FaultStateUnreadable, FaultStateReadable, FaultRestart, FaultDelete, FaultSuspend, FaultResume,
	FaultSuspendScheduling, FaultResumeScheduling}

// FaultSpec is one entry of the fault schedule.
type FaultSpec struct {
	At       Duration `yaml:"at"`
	Type     string   `yaml:"type"`
	Cluster  string   `yaml:"cluster,omitempty"`
	Zone     string   `yaml:"zone,omitempty"`
	Workload string   `yaml:"workload,omitempty"`
	For      Duration `yaml:"for,omitempty"`
	Period   Duration `yaml:"period,omitempty"`
}

// Duration is a YAML duration: "90s", "5m", "1h30m" or a number of seconds.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a duration such as 30s or 5m", n.Line)}}
	}
	if secs, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
		if secs < 0 || secs > int64(100*365*24*time.Hour/time.Second) {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: duration %s out of range", n.Line, n.Value)}}
		}
		*d = Duration(time.Duration(secs) * time.Second)
		return nil
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not a duration (want e.g. 30s, 5m, 1h)", n.Line, n.Value)}}
	}
	if v < 0 {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: duration %s is negative", n.Line, n.Value)}}
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// ScenarioError is one problem in a scenario file, located by line and field.
type ScenarioError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e ScenarioError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// ErrInvalidScenario is wrapped by every error ParseScenario returns.
var ErrInvalidScenario = errors.New("invalid scenario")

// ParseError lists every problem found in a scenario file, in line order.
type ParseError struct {
	Errors []ScenarioError
}

func (e *ParseError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, se := range e.Errors {
		parts[i] = se.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap lets errors.Is(err, ErrInvalidScenario) hold.
func (e *ParseError) Unwrap() error { return ErrInvalidScenario }

// nodeIndex maps field paths (clusters[2].zone) to the YAML nodes that hold
// them, so that any error found after decoding can name its line.
type nodeIndex struct {
	byPath map[string]*yaml.Node // value nodes
	keys   map[string]*yaml.Node // key nodes of mapping entries
	lines  map[int]string        // deepest path starting on a line
}

func buildIndex(root *yaml.Node) *nodeIndex {
	ix := &nodeIndex{byPath: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}, lines: map[int]string{}}
	var walk func(n *yaml.Node, path string, depth int)
	walk = func(n *yaml.Node, path string, depth int) {
		if n == nil || depth > 64 {
			return
		}
		ix.byPath[path] = n
		ix.noteLine(n.Line, path)
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path, depth+1)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				ix.keys[p] = k
				ix.noteLine(k.Line, p)
				walk(v, p, depth+1)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		}
	}
	walk(root, "", 0)
	return ix
}

func (ix *nodeIndex) noteLine(line int, path string) {
	if path == "" {
		return
	}
	if old, ok := ix.lines[line]; !ok || len(path) > len(old) {
		ix.lines[line] = path
	}
}

// line returns the line of the field at path, or of its closest ancestor.
func (ix *nodeIndex) line(path string) int {
	for p := path; p != ""; p = parentPath(p) {
		if n, ok := ix.keys[p]; ok {
			return n.Line
		}
		if n, ok := ix.byPath[p]; ok {
			return n.Line
		}
	}
	return 0
}

func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i <= 0 {
		return ""
	}
	return p[:i]
}

type errCollector struct {
	file string
	ix   *nodeIndex
	errs []ScenarioError
}

func (c *errCollector) add(path, format string, args ...any) {
	c.errs = append(c.errs, ScenarioError{File: c.file, Line: c.ix.line(path), Field: path, Msg: fmt.Sprintf(format, args...)})
}

func (c *errCollector) addLine(line int, path, msg string) {
	c.errs = append(c.errs, ScenarioError{File: c.file, Line: line, Field: path, Msg: msg})
}

func (c *errCollector) err() error {
	if len(c.errs) == 0 {
		return nil
	}
	sort.SliceStable(c.errs, func(i, j int) bool { return c.errs[i].Line < c.errs[j].Line })
	return &ParseError{Errors: c.errs}
}

var (
	yamlLineRE     = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	unknownFieldRE = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
	cannotDecodeRE = regexp.MustCompile(`^cannot unmarshal !!(\w+) ` + "`" + `?(.*?)` + "`" + `? into (\S+)$`)
)

// isEmptyNode reports whether n is an implicit null: no value and no
// tag written.
func isEmptyNode(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" && n.Style == 0
}

// maxScenarioBytes bounds what the parser reads; a fleet description is small.
const maxScenarioBytes = 4 << 20

// ParseScenario decodes and validates a scenario file. Every error names the
// file, the line and the field, e.g.
//
//	scenario.yaml:12: clusters[2].zone: must not be empty
func ParseScenario(file string, data []byte) (*Scenario, error) {
	c := &errCollector{file: file, ix: &nodeIndex{byPath: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}, lines: map[int]string{}}}
	if len(data) > maxScenarioBytes {
		c.addLine(0, "", fmt.Sprintf("file is larger than %d bytes", maxScenarioBytes))
		return nil, c.err()
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		c.addYAMLError(err)
		return nil, c.err()
	}
	// A document that holds nothing ("---" alone) is a null node, which
	// the parser places past the file's last line: it is empty, at line 1.
	if root.Kind == 0 || len(root.Content) == 0 || isEmptyNode(root.Content[0]) {
		c.addLine(1, "", "empty scenario")
		return nil, c.err()
	}
	if root.Content[0].Kind != yaml.MappingNode {
		c.addLine(root.Content[0].Line, "", "a scenario is a mapping with clusters, workloads and faults")
		return nil, c.err()
	}
	c.ix = buildIndex(&root)

	var sc Scenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		c.addYAMLError(err)
		return nil, c.err()
	}
	for i := range sc.Workloads {
		decodeWorkloadBlocks(c, &sc.Workloads[i], fmt.Sprintf("workloads[%d]", i))
	}
	validateScenario(c, &sc)
	if err := c.err(); err != nil {
		return nil, err
	}
	sc.Settings = sc.Settings.withDefaults()
	if sc.Step == 0 {
		sc.Step = Duration(5 * time.Second)
	}
	if sc.Duration == 0 {
		sc.Duration = Duration(time.Hour)
	}
	return &sc, nil
}

func (c *errCollector) addYAMLError(err error) {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		for _, s := range te.Errors {
			c.addYAMLLine(s)
		}
		return
	}
	c.addYAMLLine(err.Error())
}

func (c *errCollector) addYAMLLine(s string) {
	m := yamlLineRE.FindStringSubmatch(s)
	if m == nil {
		c.addLine(0, "", strings.TrimPrefix(s, "yaml: "))
		return
	}
	line, _ := strconv.Atoi(m[1])
	msg := m[2]
	path := c.ix.lines[line]
	if u := unknownFieldRE.FindStringSubmatch(msg); u != nil {
		msg = fmt.Sprintf("unknown field %q", u[1])
	} else if u := cannotDecodeRE.FindStringSubmatch(msg); u != nil {
		msg = fmt.Sprintf("%s %q is not a valid %s", yamlKind(u[1]), u[2], goKind(u[3]))
	}
	c.addLine(line, path, msg)
}

func yamlKind(tag string) string {
	switch tag {
	case "str":
		return "string"
	case "int", "float":
		return "number"
	case "seq":
		return "list"
	case "map":
		return "mapping"
	}
	return tag
}

func goKind(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "integer"
	case strings.HasPrefix(t, "float"):
		return "number"
	case strings.HasPrefix(t, "[]"):
		return "list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "main."):
		return "mapping"
	case t == "bool":
		return "boolean (true or false)"
	}
	return "string"
}

// decodeBlock converts a YAML subtree to JSON and decodes it strictly into
// out, which is a library type carrying json tags. Unknown fields and type
// errors are mapped back to the line that holds them.
func decodeBlock(c *errCollector, n *yaml.Node, path string, out any) bool {
	var generic any
	if err := n.Decode(&generic); err != nil {
		c.add(path, "%v", err)
		return false
	}
	raw, err := json.Marshal(jsonCompatible(generic))
	if err != nil {
		c.add(path, "cannot convert to JSON: %v", err)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			p := path
			if te.Field != "" {
				p = findJSONField(c.ix, path, te.Field)
			}
			c.add(p, "%s is not a valid %s", te.Value, goKind(te.Type.String()))
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
			c.add(findKey(c.ix, path, name), "unknown field %q", name)
		default:
			c.add(path, "%s", strings.TrimPrefix(err.Error(), "json: "))
		}
		return false
	}
	return true
}

// jsonCompatible turns the map[any]any values yaml may produce into
// map[string]any.
func jsonCompatible(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonCompatible(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = jsonCompatible(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonCompatible(e)
		}
		return t
	}
	return v
}

// findJSONField maps a dotted json field path (without list indices) under
// base to an indexed path present in the file.
func findJSONField(ix *nodeIndex, base, field string) string {
	best := base
	for p := range ix.keys {
		if !strings.HasPrefix(p, base+".") {
			continue
		}
		if stripIndices(strings.TrimPrefix(p, base+".")) == field && (best == base || p < best) {
			best = p
		}
	}
	return best
}

func findKey(ix *nodeIndex, base, name string) string {
	best := base
	for p := range ix.keys {
		if strings.HasPrefix(p, base+".") && (strings.HasSuffix(p, "."+name)) && (best == base || p < best) {
			best = p
		}
	}
	return best
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

func stripIndices(p string) string { return indexRE.ReplaceAllString(p, "") }

func decodeWorkloadBlocks(c *errCollector, w *WorkloadSpec, path string) {
	if w.FailoverY.Kind != 0 {
		var fb failover.FailoverBehavior
		if decodeBlock(c, &w.FailoverY, path+".failover", &fb) {
			w.Failover = &fb
		}
	}
	if w.Placement.ClusterTolerations.Kind != 0 {
		var tols []corev1.Toleration
		if decodeBlock(c, &w.Placement.ClusterTolerations, path+".placement.clusterTolerations", &tols) {
			w.Tolerations = tols
		}
	}
	if w.EvictionTasksY.Kind != 0 {
		var tasks []eviction.GracefulEvictionTask
		if decodeBlock(c, &w.EvictionTasksY, path+".evictionTasks", &tasks) {
			w.EvictionTasks = tasks
		}
	}
	if w.Suspension.Kind != 0 {
		sp := path + ".suspension"
		if w.Suspension.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(w.Suspension.Content); i += 2 {
				k := w.Suspension.Content[i].Value
				if !slices.Contains(suspensionKeys, k) {
					c.add(sp+"."+k, "unknown field %q (want one of %v)", k, suspensionKeys)
				}
			}
		}
		var s suspension.Suspension
		if decodeBlock(c, &w.Suspension, sp, &s) {
			w.Suspend = &s
		}
	}
}

var suspensionKeys = []string{"dispatching", "dispatchingOnClusters", "suspendDispatching", "suspendDispatchingOnClusters"}
