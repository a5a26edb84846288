package lua

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetover/fleetover/failover/health"
)

// ric renders a customization; an empty script leaves healthInterpretation
// out.
func ric(name, apiVersion, kind, script string) string {
	doc := `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: ` + name + `
spec:
  target:
    apiVersion: ` + apiVersion + `
    kind: ` + kind + `
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj) return 1, nil end
`
	if script != "" {
		doc += "    healthInterpretation:\n      luaScript: |\n"
		for _, line := range strings.Split(script, "\n") {
			doc += "        " + line + "\n"
		}
	}
	return doc
}

const phaseRunning = `function InterpretHealth(observedObj)
  return observedObj.status.phase == 'Running'
end`

func TestParseCustomizationsForms(t *testing.T) {
	single := ric("widget", "example.com/v1", "Widget", phaseRunning)
	multi := "---\n" + single + "---\n\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n---\n" +
		ric("gadget-replicas", "example.com/v1", "Gadget", "")
	list := "apiVersion: v1\nkind: List\nitems:\n" + indentItem(ric("widget", "example.com/v1", "Widget", phaseRunning)) +
		indentItem(ric("gadget", "example.com/v2", "Gadget", phaseRunning))
	typedList := strings.Replace(list, "apiVersion: v1\nkind: List", "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomizationList", 1)
	json := `{"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterCustomization","metadata":{"name":"widget"},
	  "spec":{"target":{"apiVersion":"example.com/v1","kind":"Widget"},"customizations":{"healthInterpretation":{"luaScript":"function InterpretHealth(o) return true end"}}}}`

	for name, tc := range map[string]struct {
		doc         string
		wantItems   []string // name@target
		wantSkipped []string // Skipped.String() substrings
	}{
		"one object":   {single, []string{"widget@example.com/v1, Kind=Widget"}, nil},
		"multi doc":    {multi, []string{"widget@example.com/v1, Kind=Widget"}, []string{`document 3: ConfigMap "settings": ` + SkipOtherKind, `document 4: ResourceInterpreterCustomization "gadget-replicas": ` + SkipNoHealthScript}},
		"kubectl List": {list, []string{"widget@example.com/v1, Kind=Widget", "gadget@example.com/v2, Kind=Gadget"}, nil},
		"typed List":   {typedList, []string{"widget@example.com/v1, Kind=Widget", "gadget@example.com/v2, Kind=Gadget"}, nil},
		"JSON":         {json, []string{"widget@example.com/v1, Kind=Widget"}, nil},
		"empty":        {"", nil, nil},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := ParseCustomizations([]byte(tc.doc), "in.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, item := range c.Items {
				got = append(got, item.Name+"@"+item.Target.String())
				if item.Source != "in.yaml" || item.Document == 0 || !strings.Contains(item.HealthScript, "InterpretHealth") {
					t.Errorf("item %+v", item)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.wantItems, " ") {
				t.Errorf("items %q, want %q", got, tc.wantItems)
			}
			if len(c.Skipped) != len(tc.wantSkipped) {
				t.Fatalf("skipped %v, want %q", c.Skipped, tc.wantSkipped)
			}
			for i, s := range c.Skipped {
				if !strings.Contains(s.String(), tc.wantSkipped[i]) {
					t.Errorf("skipped %q, want %q", s.String(), tc.wantSkipped[i])
				}
			}
		})
	}
}

// indentItem turns a YAML document into an item of a List.
func indentItem(doc string) string {
	lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = "- " + l
		} else {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestParseCustomizationsErrorsNameFileObjectAndField(t *testing.T) {
	good := ric("widget", "example.com/v1", "Widget", phaseRunning)
	for name, tc := range map[string]struct {
		doc       string
		wantDoc   int
		wantName  string
		wantField string
	}{
		"wrong apiVersion":    {strings.Replace(good, "config.karmada.io/v1alpha1", "config.karmada.io/v1", 1), 1, "widget", "apiVersion: Unsupported value"},
		"no name":             {strings.Replace(good, "name: widget", "labels: {}", 1), 1, "", "metadata.name: Required"},
		"name not a string":   {strings.Replace(good, "name: widget", "name: [a]", 1), 1, "", "metadata.name: Invalid value"},
		"no target kind":      {strings.Replace(good, "    kind: Widget\n", "", 1), 1, "widget", "spec.target.kind: Required"},
		"no target version":   {strings.Replace(good, "apiVersion: example.com/v1", "apiVersion: ''", 1), 1, "widget", "spec.target.apiVersion: Required"},
		"bad target version":  {strings.Replace(good, "apiVersion: example.com/v1", "apiVersion: a/b/c", 1), 1, "widget", "spec.target.apiVersion: Invalid value"},
		"target not a map":    {strings.Replace(good, "  target:\n    apiVersion: example.com/v1\n    kind: Widget\n", "  target: Widget\n", 1), 1, "widget", "spec.target: Invalid value"},
		"no spec":             {"apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: widget}\n", 1, "widget", "spec: Required"},
		"script not a string": {strings.Replace(good, "healthInterpretation:\n      luaScript: |", "healthInterpretation:\n      luaScript: 3\n      x: |", 1), 1, "widget", "spec.customizations.healthInterpretation.luaScript: Invalid value"},
		"empty script":        {strings.Replace(good, "healthInterpretation:\n      luaScript: |", "healthInterpretation:\n      luaScript: ''\n      x: |", 1), 1, "widget", "spec.customizations.healthInterpretation.luaScript: Required"},
		"health not a map":    {strings.Replace(good, "healthInterpretation:\n      luaScript: |", "healthInterpretation: 5\n    other:\n      luaScript: |", 1), 1, "widget", "spec.customizations.healthInterpretation: Invalid value"},
		"no kind":             {"---\n" + good + "---\nfoo: bar\n", 2, "", "kind: Required"},
		"not an object":       {good + "---\nhello\n", 2, "", "Invalid value"},
		"in a List":           {"apiVersion: v1\nkind: List\nitems:\n" + indentItem(good) + indentItem(strings.Replace(good, "    kind: Widget\n", "", 1)), 1, "widget", "items[1].spec.target.kind: Required"},
		"items not a list":    {"apiVersion: v1\nkind: List\nitems: 3\n", 1, "", "items: Invalid value"},
		"syntax error":        {good + "---\n\tfoo: [\n", 2, "", "yaml"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseCustomizations([]byte(tc.doc), "dir/rules.yaml")
			if !errors.Is(err, ErrInvalidCustomization) {
				t.Fatalf("error %v does not wrap ErrInvalidCustomization", err)
			}
			var ce *CustomizationError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *CustomizationError", err)
			}
			if ce.Source != "dir/rules.yaml" || ce.Document != tc.wantDoc || ce.Name != tc.wantName {
				t.Errorf("error locates %q document %d object %q, want document %d object %q", ce.Source, ce.Document, ce.Name, tc.wantDoc, tc.wantName)
			}
			if !strings.Contains(err.Error(), tc.wantField) || !strings.HasPrefix(err.Error(), "dir/rules.yaml: document ") {
				t.Errorf("error %q does not name %q", err, tc.wantField)
			}
		})
	}
}

func TestParseCustomizationsKeepsValidObjectsNextToBadOnes(t *testing.T) {
	doc := ric("a", "example.com/v1", "A", phaseRunning) + "---\n" +
		strings.Replace(ric("b", "example.com/v1", "B", phaseRunning), "    kind: B\n", "", 1) + "---\n" +
		ric("c", "example.com/v1", "C", phaseRunning)
	c, err := ParseCustomizations([]byte(doc), "x.yaml")
	if err == nil || !strings.Contains(err.Error(), `document 2: ResourceInterpreterCustomization "b": spec.target.kind: Required`) {
		t.Fatalf("error %v", err)
	}
	if len(c.Items) != 2 || c.Items[0].Name != "a" || c.Items[1].Name != "c" {
		t.Errorf("items %+v", c.Items)
	}
}

func TestParseCustomizationsRefusesHugeInput(t *testing.T) {
	_, err := ParseCustomizations(make([]byte, MaxCustomizationFileBytes+1), "big.yaml")
	if !errors.Is(err, ErrInvalidCustomization) || !strings.Contains(err.Error(), "big.yaml: ") {
		t.Errorf("error %v", err)
	}
}

func TestLoadCustomizationsWalksADirectory(t *testing.T) {
	fsys := fstest.MapFS{
		"rules/b/widget.yaml":         {Data: []byte(ric("widget", "example.com/v1", "Widget", phaseRunning))},
		"rules/a/gadget.yml":          {Data: []byte(ric("gadget", "example.com/v1", "Gadget", phaseRunning))},
		"rules/a/deeper/thing.json":   {Data: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`)},
		"rules/a/README.md":           {Data: []byte("not read")},
		"rules/a/testdata/cases.yaml": {Data: []byte("name: a test case, not an object\n")},
		"rules/.hidden/x.yaml":        {Data: []byte("broken: [")},
		"rules/_drafts/y.yaml":        {Data: []byte("broken: [")},
		"rules/c/broken.yaml":         {Data: []byte(strings.Replace(ric("broken", "example.com/v1", "Broken", phaseRunning), "config.karmada.io/v1alpha1", "v1", 1))},
		"rules/c/customizations.yaml": {Data: []byte(ric("z", "example.com/v1", "Z", ""))},
		"single/one.yaml":             {Data: []byte(ric("one", "example.com/v1", "One", phaseRunning))},
	}
	c, err := LoadCustomizations(fsys, "rules")
	if err == nil || !strings.Contains(err.Error(), `rules/c/broken.yaml: document 1: ResourceInterpreterCustomization "broken": apiVersion: Unsupported value`) {
		t.Fatalf("error %v", err)
	}
	var got []string
	for _, item := range c.Items {
		got = append(got, item.Source+":"+item.Name)
	}
	if want := "rules/a/gadget.yml:gadget rules/b/widget.yaml:widget"; strings.Join(got, " ") != want {
		t.Errorf("items %q, want %q", got, want)
	}
	var skipped []string
	for _, s := range c.Skipped {
		skipped = append(skipped, s.Source+":"+s.Name)
	}
	if want := "rules/a/deeper/thing.json:cm rules/c/customizations.yaml:z"; strings.Join(skipped, " ") != want {
		t.Errorf("skipped %q, want %q", skipped, want)
	}

	c, err = LoadCustomizations(fsys, "single/one.yaml")
	if err != nil || len(c.Items) != 1 || c.Items[0].Source != "single/one.yaml" {
		t.Errorf("one file: %+v, %v", c, err)
	}
	if _, err := LoadCustomizations(fsys, "missing"); !errors.Is(err, ErrInvalidCustomization) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing root: %v", err)
	}
}

func widgetObject(version, phase string) string {
	return `{"apiVersion":"example.com/` + version + `","kind":"Widget","status":{"phase":"` + phase + `"}}`
}

func TestRegisterCustomizationsPrecedence(t *testing.T) {
	// Karmada merges the customizations of a target in name order and
	// keeps the first health script; one without a health script takes
	// nothing away.
	doc := ric("b-running", "example.com/v1", "Widget", phaseRunning) + "---\n" +
		ric("a-replicas-only", "example.com/v1", "Widget", "") + "---\n" +
		ric("c-running-too", "example.com/v1", "Widget", phaseRunning) + "---\n" +
		ric("a-pending", "example.com/v1", "Widget", `function InterpretHealth(o) return o.status.phase == 'Pending' end`)
	c, err := ParseCustomizations([]byte(doc), "rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg := health.NewRegistry(health.RegistryConfig{})
	out, err := RegisterCustomizations(reg, c, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Registered) != 1 || out.Registered[0].Name != "a-pending" {
		t.Errorf("registered %+v", out.Registered)
	}
	if len(out.Overridden) != 2 || out.Overridden[0].Name != "b-running" || out.Overridden[1].Name != "c-running-too" ||
		!strings.Contains(out.Overridden[0].Reason, `"a-pending"`) {
		t.Errorf("overridden %+v", out.Overridden)
	}
	if len(c.Skipped) != 1 || c.Skipped[0].Name != "a-replicas-only" {
		t.Errorf("skipped %+v", c.Skipped)
	}
	if got := reg.Interpret(decode(t, widgetObject("v1", "Pending"))); got.Status != health.Healthy {
		t.Errorf("Pending: %+v", got)
	}
	if got := reg.Interpret(decode(t, widgetObject("v1", "Running"))); got.Status != health.Unhealthy {
		t.Errorf("Running: %+v", got)
	}
	// Karmada keys customizations by exact apiVersion: v2 is not covered.
	if got := reg.Interpret(decode(t, widgetObject("v2", "Pending"))); got.Reason != health.ReasonNoInterpreter {
		t.Errorf("v2: %+v", got)
	}

	// A later call (the cluster's own customizations after the bundled
	// ones) replaces the earlier registration of the target.
	user, err := ParseCustomizations([]byte(ric("a-user", "example.com/v1", "Widget", phaseRunning)), "user.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RegisterCustomizations(reg, user, Config{}); err != nil {
		t.Fatal(err)
	}
	if got := reg.Interpret(decode(t, widgetObject("v1", "Running"))); got.Status != health.Healthy {
		t.Errorf("after the user's customization, Running: %+v", got)
	}
}

func TestRegisterCustomizationsOverridesABuiltinForItsVersionOnly(t *testing.T) {
	c, err := ParseCustomizations([]byte(ric("flink", "flink.apache.org/v1beta1", "FlinkDeployment", `function InterpretHealth(o) return false end`)), "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg := health.NewRegistry(health.RegistryConfig{})
	if _, err := RegisterCustomizations(reg, c, Config{}); err != nil {
		t.Fatal(err)
	}
	flink := func(version string) string {
		return `{"apiVersion":"flink.apache.org/` + version + `","kind":"FlinkDeployment","status":{"lifecycleState":"STABLE","jobStatus":{"state":"RUNNING"}}}`
	}
	if got := reg.Interpret(decode(t, flink("v1beta1"))); got.Status != health.Unhealthy {
		t.Errorf("v1beta1 (customization): %+v", got)
	}
	if got := reg.Interpret(decode(t, flink("v1beta2"))); got.Status != health.Healthy {
		t.Errorf("v1beta2 (built-in rule): %+v", got)
	}
}

func TestRegisterCustomizationsRegistersNothingOnError(t *testing.T) {
	doc := ric("good", "example.com/v1", "Good", phaseRunning) + "---\n" +
		ric("bad", "example.com/v1", "Bad", "function InterpretHealth(o) return o.status.phase == end") + "---\n" +
		ric("none", "example.com/v1", "None", "function SomethingElse(o) return true end")
	c, err := ParseCustomizations([]byte(doc), "rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg := health.NewRegistry(health.RegistryConfig{})
	_, err = RegisterCustomizations(reg, c, Config{})
	if !errors.Is(err, ErrInvalidCustomization) || !errors.Is(err, health.ErrCompile) {
		t.Fatalf("error %v", err)
	}
	for _, want := range []string{
		`rules.yaml: document 2: ResourceInterpreterCustomization "bad": spec.customizations.healthInterpretation.luaScript: Invalid value`,
		`rules.yaml: document 3: ResourceInterpreterCustomization "none": spec.customizations.healthInterpretation.luaScript`,
		"defines no function InterpretHealth",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, ok := reg.Lookup(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Good"}); ok {
		t.Error("the good customization was registered although another failed")
	}
}

func TestRegisterCustomizationsRefusesDuplicateNames(t *testing.T) {
	c, err := ParseCustomizations([]byte(ric("same", "example.com/v1", "A", phaseRunning)+"---\n"+ric("same", "example.com/v1", "B", phaseRunning)), "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = RegisterCustomizations(health.NewRegistry(health.RegistryConfig{}), c, Config{})
	if !errors.Is(err, ErrInvalidCustomization) || !strings.Contains(err.Error(), "metadata.name: Duplicate value") {
		t.Errorf("error %v", err)
	}
	if _, err := RegisterCustomizations(nil, c, Config{}); !errors.Is(err, health.ErrInvalidRegistration) {
		t.Errorf("nil registry: %v", err)
	}
	if _, err := RegisterCustomizations(health.NewRegistry(health.RegistryConfig{}), c, Config{MaxScriptBytes: -1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("bad config: %v", err)
	}
}

func TestRegisterCustomizationsNamesTheRuleInEvaluationErrors(t *testing.T) {
	c, err := ParseCustomizations([]byte(ric("widget-health", "example.com/v1", "Widget",
		`function InterpretHealth(o) return o.status.replicas < o.spec.replicas end`)), "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg := health.NewRegistry(health.RegistryConfig{})
	if _, err := RegisterCustomizations(reg, c, Config{}); err != nil {
		t.Fatal(err)
	}
	got := reg.Interpret(decode(t, `{"apiVersion":"example.com/v1","kind":"Widget","status":{}}`))
	if got.Status != health.Unknown || !strings.Contains(got.Reason, `"widget-health"`) {
		t.Errorf("%+v", got)
	}
}
