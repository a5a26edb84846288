package preservation

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateStatePreservation checks every rule of sp as an admission webhook
// would: each aliasLabelName is a qualified label key used by one rule only,
// and each jsonPath is a template that Compile accepts. A nil sp is valid
// (no state is carried).
func ValidateStatePreservation(sp *StatePreservation, fldPath *field.Path) field.ErrorList {
	if sp == nil {
		return nil
	}
	errs, _ := validateRules(sp.Rules, fldPath.Child("rules"))
	return errs
}

// validateRules validates a rule list located at rulesPath and returns the
// parsed templates, which are meaningful only when there are no errors.
func validateRules(rules []StatePreservationRule, rulesPath *field.Path) (field.ErrorList, []template) {
	var allErrs field.ErrorList
	if len(rules) > MaxRules {
		// Nothing more is looked at: the work must not grow with the input.
		return append(allErrs, field.TooMany(rulesPath, len(rules), MaxRules)), nil
	}
	templates := make([]template, len(rules))
	seen := sets.New[string]()
	for i := range rules {
		rule := &rules[i]
		rulePath := rulesPath.Index(i)
		aliasPath := rulePath.Child("aliasLabelName")
		switch {
		case rule.AliasLabelName == "":
			allErrs = append(allErrs, field.Required(aliasPath, "a label key to carry the value under is required"))
		default:
			for _, msg := range validation.IsQualifiedName(rule.AliasLabelName) {
				allErrs = append(allErrs, field.Invalid(aliasPath, rule.AliasLabelName, msg))
			}
			if seen.Has(rule.AliasLabelName) {
				allErrs = append(allErrs, field.Duplicate(aliasPath, rule.AliasLabelName))
			}
			seen.Insert(rule.AliasLabelName)
		}
		tmpl, err := parseTemplate(rule.JSONPath)
		if err != nil {
			allErrs = append(allErrs, templateError(rulePath.Child("jsonPath"), rule.JSONPath, err))
		}
		templates[i] = tmpl
	}
	return allErrs, templates
}
