package eviction

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateAssessInput reports what in has that Assess cannot act on as the
// caller meant: the deprecated SchedulerObservedLatest set (its meaning is
// the opposite of SchedulerBehind's, which replaced it), and tasks to judge
// with no Now (Assess then judges nothing; see AssessInto). A nil in is
// valid: it is empty input. Run it where the input is built, in tests or
// once per code path; Assess itself stays a pure function without an error.
func ValidateAssessInput(in *AssessInput, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if in == nil {
		return nil
	}
	if in.SchedulerObservedLatest {
		errs = append(errs, field.Forbidden(fldPath.Child("schedulerObservedLatest"),
			"removed: set schedulerBehind instead, with the opposite meaning (schedulerBehind = !schedulerObservedLatest); "+
				"the zero value of schedulerBehind is a scheduler that caught up"))
	}
	if len(in.Tasks) > 0 && in.Now.IsZero() {
		errs = append(errs, field.Required(fldPath.Child("now"),
			"the time of the assessment is required to judge tasks: with a zero time no task is stamped or removed"))
	}
	return errs
}
