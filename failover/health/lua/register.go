package lua

import (
	"errors"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/failover/health"
)

// Registration reports what RegisterCustomizations registered.
type Registration struct {
	// Registered holds, per target, the customization whose script now
	// interprets it, sorted by target.
	Registered []Customization
	// Overridden holds the customizations whose health script another
	// customization of the same target replaced (Reason names it).
	Overridden []Skipped
}

// RegisterCustomizations compiles the health script of every customization
// in c with NewInterpreter and registers it with reg for its exact target
// GroupVersionKind (Registry.Register), as Karmada keys customizations:
// other versions of the kind keep their interpreter (a built-in rule
// registered for the GroupKind, say).
//
// Precedence follows Karmada's configurable interpreter. Among the
// customizations of c that target the same apiVersion and kind, Karmada
// merges them in order of metadata.name and a health script, once set, is
// kept: the first in name order wins, and the others are reported in
// Registration.Overridden. (Karmada's admission webhook refuses a second
// customization with a health script for a target; this is the order for
// one created without the webhook.) Across calls, a later call
// replaces an earlier registration of the same target: register the
// customizations Karmada bundles first and the cluster's own after, as
// Karmada consults the declared customizations before the bundled ones.
//
// cfg is the configuration of each script, its Name replaced by the
// customization's name. Nothing is registered when any script fails to
// compile, when two customizations share a name, or when cfg is invalid:
// the error joins one *CustomizationError per object, each naming its
// source, object and field (spec.customizations.healthInterpretation.luaScript
// for a script, wrapping the *health.CompileError).
func RegisterCustomizations(reg *health.Registry, c Customizations, cfg Config) (Registration, error) {
	if reg == nil {
		return Registration{}, fmt.Errorf("%w: no registry", health.ErrInvalidRegistration)
	}
	if errs := ValidateConfig(cfg, nil); len(errs) > 0 {
		return Registration{}, fmt.Errorf("%w: %w", ErrInvalidConfig, errs.ToAggregate())
	}
	items := append([]Customization(nil), c.Items...)
	sort.SliceStable(items, func(i, j int) bool { return items[i].Name < items[j].Name })

	var errs []error
	for i := 1; i < len(items); i++ {
		if items[i].Name == items[i-1].Name {
			first := items[i-1]
			errs = append(errs, customizationError(items[i], field.Duplicate(objectPath(items[i]).Child("metadata", "name"),
				fmt.Sprintf("%s (also in %s)", items[i].Name, locate(first.Source, first.Document, first.Path))), nil))
		}
	}
	compiled := make([]health.Interpreter, len(items))
	for i, item := range items {
		ruleCfg := cfg
		ruleCfg.Name = item.Name
		rule, err := NewInterpreter(item.HealthScript, ruleCfg)
		if err != nil {
			p := objectPath(item).Child("spec", "customizations", "healthInterpretation", "luaScript")
			errs = append(errs, customizationError(item, field.Invalid(p, "(Lua script)", "does not compile"), err))
			continue
		}
		compiled[i] = rule
	}
	if len(errs) > 0 {
		return Registration{}, errors.Join(errs...)
	}

	// Name order: the first customization of a target wins.
	winner := map[schema.GroupVersionKind]int{}
	for i, item := range items {
		if _, taken := winner[item.Target]; !taken {
			winner[item.Target] = i
		}
	}
	var out Registration
	for i, item := range items {
		if w := winner[item.Target]; w != i {
			out.Overridden = append(out.Overridden, Skipped{Source: item.Source, Document: item.Document, Path: item.Path,
				Kind: CustomizationKind, Name: item.Name,
				Reason: fmt.Sprintf("health script of %s overridden by %q, first in name order", item.Target, items[w].Name)})
			continue
		}
		out.Registered = append(out.Registered, item)
	}
	sort.Slice(out.Registered, func(i, j int) bool {
		return out.Registered[i].Target.String() < out.Registered[j].Target.String()
	})
	// One registration for the whole set: a Register per target would copy
	// the registry's tables once per target, quadratic in their number.
	set := make(map[schema.GroupVersionKind]health.Interpreter, len(winner))
	for i, item := range items {
		target := item.Target
		if winner[target] != i {
			continue
		}
		if target.Kind == "" || target.Version == "" {
			// The target was checked when it was read; this only fails
			// for a Customization built by hand with an incomplete target.
			err := fmt.Errorf("%w: kind %q: version and kind are required", health.ErrInvalidRegistration, target.String())
			errs = append(errs, customizationError(items[i], field.Required(objectPath(items[i]).Child("spec", "target"), "apiVersion and kind"), err))
			continue
		}
		set[target] = compiled[i]
	}
	if err := reg.RegisterAll(set); err != nil {
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

func customizationError(c Customization, fe *field.Error, cause error) *CustomizationError {
	return &CustomizationError{Source: c.Source, Document: c.Document, Name: c.Name, Errs: field.ErrorList{fe}, Err: cause}
}

// objectPath is the field path of c's object in its document.
func objectPath(c Customization) *field.Path {
	if c.Path == "" {
		return nil
	}
	// Path is "items[i]" (or nested items of items), built by read.
	return field.NewPath(c.Path)
}

func locate(source string, doc int, p string) string {
	s := source
	if doc > 0 {
		s += fmt.Sprintf(" document %d", doc)
	}
	if p != "" {
		s += " " + p
	}
	return s
}
