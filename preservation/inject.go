package preservation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Inject writes state into obj's metadata.labels, creating them when
// absent. When a label already exists under a state key, the preserved
// state wins: the manifest being dispatched is the template, and the state
// is what the workload must resume from. state itself is never modified.
//
// Inject validates everything before it changes anything: a key that is not
// a label key (ErrInvalidLabelKey), a value that is not a label value
// (ErrInvalidLabelValue), a nil obj or malformed metadata (ErrInvalidObject)
// leave obj untouched. An empty state leaves obj untouched.
func Inject(obj *unstructured.Unstructured, state map[string]string) error {
	if len(state) == 0 {
		return nil
	}
	if obj == nil {
		return fmt.Errorf("%w: object is nil", ErrInvalidObject)
	}
	for key, value := range state {
		if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
			return fmt.Errorf("%w: %q: %s", ErrInvalidLabelKey, key, strings.Join(msgs, "; "))
		}
		if !isLabelValue(value) {
			return fmt.Errorf("label %q: %w", key, labelValueError(value))
		}
	}
	labels, _, err := unstructured.NestedStringMap(obj.Object, "metadata", "labels")
	if err != nil {
		return fmt.Errorf("%w: metadata.labels: %w", ErrInvalidObject, err)
	}
	if labels == nil {
		labels = make(map[string]string, len(state))
	}
	for key, value := range state {
		labels[key] = value
	}
	if obj.Object == nil {
		obj.Object = map[string]any{}
	}
	if err := unstructured.SetNestedStringMap(obj.Object, labels, "metadata", "labels"); err != nil {
		return fmt.Errorf("%w: metadata.labels: %w", ErrInvalidObject, err)
	}
	return nil
}
