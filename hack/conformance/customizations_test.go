package conformance

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	configv1alpha1 "github.com/karmada-io/karmada/pkg/apis/config/v1alpha1"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/customized/declarative"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/customized/declarative/configmanager"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/customized/declarative/luavm"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/default/thirdparty"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/default/thirdparty/resourcecustomizations"
	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/failover/health/lua"
)

// userCustomizations are hand-written customizations: one using Karmada's
// kube library, three of one target (precedence by name, one without a
// health script), a kubectl List, and one replacing a bundled rule.
const userCustomizations = "testdata/customizations"

// karmadaChain is Karmada's health interpretation for kinds with a Lua
// customization, in the order its resource interpreter consults them: the
// declared customizations (declarative.ConfigurableInterpreter, loaded
// with the typed objects), then the bundled ones
// (thirdparty.NewConfigurableInterpreter). Both run scripts in luavm.
type karmadaChain struct {
	declared *declarative.ConfigurableInterpreter
	bundled  *thirdparty.ConfigurableInterpreter
	declCfg  configmanager.ConfigManager
	bundCfg  configmanager.ConfigManager
	vm       *luavm.VM
}

func newKarmadaChain(t *testing.T) *karmadaChain {
	typed := readTypedCustomizations(t, os.DirFS(userCustomizations))
	declared := declarative.NewConfigurableInterpreter(nil)
	declared.LoadConfig(slices.Clone(typed))
	declCfg := configmanager.NewInterpreterConfigManager(nil)
	declCfg.LoadConfig(slices.Clone(typed))
	return &karmadaChain{
		declared: declared,
		bundled:  thirdparty.NewConfigurableInterpreter(),
		declCfg:  declCfg,
		bundCfg:  thirdparty.NewThirdPartyConfigManager(),
		vm:       luavm.New(false, 1),
	}
}

// interpret returns Karmada's answer: Unknown for an error (as its work
// status controller records it), and whether a customization covered the
// kind at all.
func (k *karmadaChain) interpret(u *unstructured.Unstructured) (status health.Status, covered bool, err error) {
	healthy, enabled, err := k.declared.InterpretHealth(u.DeepCopy())
	if !enabled {
		healthy, enabled, err = k.bundled.InterpretHealth(u.DeepCopy())
	}
	switch {
	case !enabled:
		return "", false, nil
	case err != nil:
		return health.Unknown, true, err
	case healthy:
		return health.Healthy, true, nil
	default:
		return health.Unhealthy, true, nil
	}
}

// script is the health script Karmada runs for gvk.
func (k *karmadaChain) script(gvk schema.GroupVersionKind) string {
	for _, m := range []configmanager.ConfigManager{k.declCfg, k.bundCfg} {
		if a, ok := m.CustomAccessors()[gvk]; ok && a.GetHealthInterpretationLuaScript() != "" {
			return a.GetHealthInterpretationLuaScript()
		}
	}
	return ""
}

// readTypedCustomizations reads the files as Karmada reads
// customizations: YAML documents decoded into its typed object, a List's
// items converted one by one.
func readTypedCustomizations(t *testing.T, fsys fs.FS) []*configv1alpha1.ResourceInterpreterCustomization {
	var out []*configv1alpha1.ResourceInterpreterCustomization
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".yaml" {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
				return nil
			} else if err != nil {
				return err
			}
			objs := []unstructured.Unstructured{*u}
			if u.IsList() {
				list, err := u.ToList()
				if err != nil {
					return err
				}
				objs = list.Items
			}
			for _, o := range objs {
				c := &configv1alpha1.ResourceInterpreterCustomization{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, c); err != nil {
					return err
				}
				out = append(out, c)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fleetoverRegistry loads the bundled customizations from Karmada's
// embedded directory (testdata folders included, which the loader leaves
// out) and then the hand-written ones, with fleetover's loader, into a
// registry without built-in rules.
func fleetoverRegistry(t *testing.T, withUser bool) (*health.Registry, lua.Registration, lua.Customizations) {
	reg := health.NewRegistry(health.RegistryConfig{WithoutBuiltins: true})
	bundled, err := lua.LoadCustomizations(resourcecustomizations.Embedded, ".")
	if err != nil {
		t.Fatalf("loading Karmada's bundled customizations: %v", err)
	}
	bundledReg, err := lua.RegisterCustomizations(reg, bundled, lua.Config{})
	if err != nil {
		t.Fatalf("registering Karmada's bundled customizations: %v", err)
	}
	if !withUser {
		return reg, bundledReg, bundled
	}
	user, err := lua.LoadCustomizations(os.DirFS(userCustomizations), ".")
	if err != nil {
		t.Fatal(err)
	}
	userReg, err := lua.RegisterCustomizations(reg, user, lua.Config{})
	if err != nil {
		t.Fatal(err)
	}
	all := lua.Registration{
		Registered: append(bundledReg.Registered, userReg.Registered...),
		Overridden: append(bundledReg.Overridden, userReg.Overridden...),
	}
	skipped := lua.Customizations{Skipped: append(bundled.Skipped, user.Skipped...)}
	return reg, all, skipped
}

// TestCustomizationLoading: fleetover's loader reads the same health
// script per target as Karmada's configuration managers do, for every
// customization Karmada bundles and for the hand-written ones, and reports
// the customizations without one.
func TestCustomizationLoading(t *testing.T) {
	k := newKarmadaChain(t)
	_, reg, skipped := fleetoverRegistry(t, true)
	// A target registered twice (bundled, then declared) ends with the
	// declared script, as in Karmada's chain.
	got := map[schema.GroupVersionKind]string{}
	for _, c := range reg.Registered {
		got[c.Target] = c.HealthScript
	}
	want := map[schema.GroupVersionKind]string{}
	for _, m := range []configmanager.ConfigManager{k.bundCfg, k.declCfg} {
		for gvk, a := range m.CustomAccessors() {
			if s := a.GetHealthInterpretationLuaScript(); s != "" {
				want[gvk] = s
			}
		}
	}
	if len(want) < 27 {
		t.Fatalf("Karmada has health scripts for %d kinds, expected the 26 bundled ones and the hand-written ones", len(want))
	}
	for gvk, s := range want {
		if got[gvk] != s {
			t.Errorf("%s: fleetover's loader read script %q, Karmada runs %q", gvk, got[gvk], s)
		}
	}
	for gvk := range got {
		if _, ok := want[gvk]; !ok {
			t.Errorf("%s: fleetover registered a script Karmada does not run", gvk)
		}
	}
	// The customizations Karmada has no health script for are reported.
	var skippedNames []string
	for _, s := range skipped.Skipped {
		skippedNames = append(skippedNames, s.Name)
	}
	var overridden []string
	for _, s := range reg.Overridden {
		overridden = append(overridden, s.Name)
	}
	sort.Strings(skippedNames)
	if strings.Join(skippedNames, " ") != "declarative-configuration-advancedcronjob gadget-c" || strings.Join(overridden, " ") != "gadget-b" {
		t.Errorf("skipped %v, overridden %v", skippedNames, overridden)
	}
	t.Logf("%d targets with a health script; skipped %v; overridden %v", len(want), skippedNames, overridden)
}

// healthSeeds returns, per target, the objects to start from: the
// observed objects of Karmada's interprethealth testdata with the result
// Karmada's tests expect, and hand-written ones for the hand-written
// customizations.
func healthSeeds(t *testing.T) (map[schema.GroupVersionKind][]*unstructured.Unstructured, []seedCase) {
	seeds := map[schema.GroupVersionKind][]*unstructured.Unstructured{}
	var cases []seedCase
	err := fs.WalkDir(resourcecustomizations.Embedded, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Base(p) != "interprethealth-test.yaml" {
			return err
		}
		data, err := fs.ReadFile(resourcecustomizations.Embedded, p)
		if err != nil {
			return err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var tc struct {
				Name        string         `json:"name"`
				ObservedObj map[string]any `json:"observedObj"`
				Operation   string         `json:"operation"`
				Output      map[string]any `json:"output"`
			}
			if err := dec.Decode(&tc); errors.Is(err, io.EOF) {
				return nil
			} else if err != nil {
				return err
			}
			if tc.Operation != "InterpretHealth" || tc.ObservedObj == nil {
				continue
			}
			u := &unstructured.Unstructured{Object: tc.ObservedObj}
			seeds[u.GroupVersionKind()] = append(seeds[u.GroupVersionKind()], u)
			healthy, _ := tc.Output["healthy"].(bool)
			cases = append(cases, seedCase{file: p, name: tc.Name, obj: u, healthy: healthy})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{
		`{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"cpuLimit":"2"},"status":{"cpu":"1500m","extraCpu":"250m"}}`,
		`{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"cpuLimit":"1"},"status":{"cpu":"1","extraCpu":"1Gi"}}`,
		`{"apiVersion":"example.io/v1","kind":"Gadget","metadata":{"name":"g"},"status":{"phase":"Running"}}`,
		`{"apiVersion":"example.io/v1","kind":"Gadget","metadata":{"name":"g"},"status":{"phase":"Failed"}}`,
		`{"apiVersion":"example.io/v1","kind":"Report","metadata":{"name":"r"},"status":{"conditions":[{"type":"Ready","status":"True","reason":"Done"},{"type":"Synced","status":"True","reason":"FailedOnce"}]}}`,
		`{"apiVersion":"example.io/v1","kind":"Report","metadata":{"name":"r"},"status":{"conditions":[{"type":"Ready","status":"False"}]}}`,
	} {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON([]byte(doc)); err != nil {
			t.Fatal(err)
		}
		seeds[u.GroupVersionKind()] = append(seeds[u.GroupVersionKind()], u)
	}
	return seeds, cases
}

type seedCase struct {
	file, name string
	obj        *unstructured.Unstructured
	healthy    bool
}

// vocabulary collects what a script compares fields with (its string
// literals) and the field names it reads, for the generator to use.
var (
	luaStringLiteral = regexp.MustCompile(`'([^']*)'|"([^"]*)"`)
	luaFieldName     = regexp.MustCompile(`\.([A-Za-z_][A-Za-z0-9_]*)`)
)

type vocabulary struct{ strs, keys []string }

func scriptVocabulary(script string) vocabulary {
	var v vocabulary
	seen := map[string]bool{}
	for _, m := range luaStringLiteral.FindAllStringSubmatch(script, -1) {
		s := m[1] + m[2]
		if !seen["s"+s] {
			seen["s"+s] = true
			v.strs = append(v.strs, s)
		}
	}
	for _, m := range luaFieldName.FindAllStringSubmatch(script, -1) {
		if !seen["k"+m[1]] {
			seen["k"+m[1]] = true
			v.keys = append(v.keys, m[1])
		}
	}
	return v
}

// genValue is a value a status field may take: a word of the script, a
// small number, a quantity, a boolean, null, a status string, or an empty
// object or list.
func genValue(r *rand.Rand, v vocabulary) any {
	switch r.Intn(10) {
	case 0, 1, 2:
		if len(v.strs) > 0 {
			return pick(r, v.strs...)
		}
		return "Running"
	case 3:
		return int64(r.Intn(5) - 1)
	case 4:
		return pick[any](r, "True", "False", "", "1", "500m", "2Gi", "-1", "x")
	case 5:
		return r.Intn(2) == 0
	case 6:
		return nil
	case 7:
		return pick[any](r, "Healthy", "Unhealthy", "Unknown")
	case 8:
		return pick[any](r, map[string]any{}, []any{}, 2.5)
	default:
		return int64(r.Intn(3))
	}
}

// mutate changes one to three things in obj, property-style: a leaf under
// status, spec or metadata.generation set to another value or removed, a
// field the script reads set at the top of status or one level down, a
// condition added (sometimes null) or removed, or the whole status
// removed.
func mutate(r *rand.Rand, obj map[string]any, v vocabulary) {
	for range 1 + r.Intn(3) {
		status, _ := obj["status"].(map[string]any)
		if status == nil {
			status = map[string]any{}
			obj["status"] = status
		}
		switch r.Intn(8) {
		case 0, 1, 2:
			parent, key := randomLeaf(r, obj)
			if parent == nil {
				continue
			}
			if val := genValue(r, v); val == nil && r.Intn(2) == 0 {
				delete(parent, key)
			} else {
				parent[key] = val
			}
		case 3:
			if len(v.keys) > 0 {
				status[pick(r, v.keys...)] = genValue(r, v)
			}
		case 4:
			if len(v.keys) > 0 {
				status[pick(r, v.keys...)] = map[string]any{pick(r, v.keys...): genValue(r, v)}
			}
		case 5:
			conds, _ := status["conditions"].([]any)
			var c any // a null element, one time in six
			if r.Intn(6) != 0 {
				cond := map[string]any{"type": genValue(r, v), "status": pick[any](r, "True", "False", "Unknown")}
				if r.Intn(2) == 0 {
					cond["reason"] = genValue(r, v)
				}
				c = cond
			}
			conds = slices.Insert(conds, r.Intn(len(conds)+1), c)
			status["conditions"] = conds
		case 6:
			if conds, _ := status["conditions"].([]any); len(conds) > 0 {
				i := r.Intn(len(conds))
				status["conditions"] = slices.Delete(conds, i, i+1)
			}
		case 7:
			if r.Intn(4) == 0 {
				delete(obj, "status")
			} else {
				md, _ := obj["metadata"].(map[string]any)
				if md == nil {
					md = map[string]any{}
					obj["metadata"] = md
				}
				md["generation"] = int64(1 + r.Intn(3))
			}
		}
	}
}

// randomLeaf picks a field under status or spec, or metadata.generation:
// the map holding it and its key.
func randomLeaf(r *rand.Rand, obj map[string]any) (map[string]any, string) {
	type leaf struct {
		parent map[string]any
		key    string
	}
	var leaves []leaf
	var walk func(m map[string]any, depth int)
	walk = func(m map[string]any, depth int) {
		for k, val := range m {
			leaves = append(leaves, leaf{m, k})
			if depth > 4 {
				continue
			}
			switch x := val.(type) {
			case map[string]any:
				walk(x, depth+1)
			case []any:
				for _, e := range x {
					if em, ok := e.(map[string]any); ok {
						walk(em, depth+1)
					}
				}
			}
		}
	}
	for _, top := range []string{"status", "spec"} {
		if m, ok := obj[top].(map[string]any); ok {
			walk(m, 0)
		}
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		leaves = append(leaves, leaf{md, "generation"})
	}
	if len(leaves) == 0 {
		return nil, ""
	}
	// Map iteration order is random; sort so that a seed replays.
	sort.Slice(leaves, func(i, j int) bool {
		return leafKey(leaves[i].parent, leaves[i].key) < leafKey(leaves[j].parent, leaves[j].key)
	})
	l := leaves[r.Intn(len(leaves))]
	return l.parent, l.key
}

func leafKey(parent map[string]any, key string) string {
	var ks []string
	for k := range parent {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",") + "/" + key
}

// classifyCustomization explains a disagreement: the script returned a
// status string, which Karmada refuses (InterpretHealth must return a
// boolean) and fleetover takes.
func (k *karmadaChain) classifyCustomization(u *unstructured.Unstructured, karmadaErr error) string {
	if karmadaErr == nil {
		return "ric-health"
	}
	rets, err := k.vm.RunScript(k.script(u.GroupVersionKind()), "InterpretHealth", 1, u.DeepCopy())
	if err != nil || len(rets) != 1 {
		return "ric-health"
	}
	if s, ok := rets[0].(glua.LString); ok && health.Status(s).IsValid() {
		return "ric-status-string"
	}
	return "ric-health"
}

// TestCustomizationHealth: every health script Karmada bundles, and the
// hand-written customizations, loaded by fleetover's loader into a
// health.Registry and by Karmada's configurable interpreters, give the same
// health on the objects of Karmada's testdata and on generated mutations of
// them.
func TestCustomizationHealth(t *testing.T) {
	k := newKarmadaChain(t)
	reg, _, _ := fleetoverRegistry(t, true)
	bundledOnly, _, _ := fleetoverRegistry(t, false)
	seeds, seedCases := healthSeeds(t)

	// Karmada's own expectations for its bundled rules hold for both.
	seedKinds := map[schema.GroupVersionKind]bool{}
	for _, sc := range seedCases {
		want := health.Unhealthy
		if sc.healthy {
			want = health.Healthy
		}
		healthy, enabled, kErr := k.bundled.InterpretHealth(sc.obj.DeepCopy())
		fGot := bundledOnly.Interpret(sc.obj.DeepCopy())
		if !enabled || kErr != nil || healthy != sc.healthy || fGot.Status != want {
			t.Errorf("%s %q: expected %s, Karmada healthy=%v (%v), fleetover %s (%s)", sc.file, sc.name, want, healthy, kErr, fGot.Status, fGot.Reason)
		}
		seedKinds[sc.obj.GroupVersionKind()] = true
	}
	t.Logf("Karmada's testdata: %d objects of %d kinds, each giving the expected health on both sides", len(seedCases), len(seedKinds))

	kinds := make([]schema.GroupVersionKind, 0, len(seeds))
	for gvk := range seeds {
		kinds = append(kinds, gvk)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	vocab := map[schema.GroupVersionKind]vocabulary{}
	for _, gvk := range kinds {
		script := k.script(gvk)
		if script == "" {
			t.Fatalf("no Karmada health script for seed kind %s", gvk)
		}
		vocab[gvk] = scriptVocabulary(script)
	}

	r := rng(t.Name())
	ty := newTally(t)
	perKind := map[schema.GroupVersionKind]int{}
	for range *cases {
		gvk := pick(r, kinds...)
		u := pick(r, seeds[gvk]...).DeepCopy()
		mutate(r, u.Object, vocab[gvk])
		want, ok, kErr := k.interpret(u)
		if !ok {
			t.Fatalf("Karmada has no customization for %s", gvk)
		}
		got := reg.Interpret(u.DeepCopy())
		perKind[gvk]++
		if got.Status == want {
			ty.agree(string(want))
			continue
		}
		ty.differ(k.classifyCustomization(u, kErr), "%s %v: Karmada %s (%v), fleetover %s (%s)", gvk, u.Object, want, kErr, got.Status, got.Reason)
	}
	ty.report(string(health.Healthy), string(health.Unhealthy), string(health.Unknown))
	if len(perKind) != len(kinds) {
		t.Errorf("the generator reached %d of %d kinds", len(perKind), len(kinds))
	}
}
