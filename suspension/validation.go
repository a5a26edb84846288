package suspension

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ClusterNameMaxLength is the longest cluster name accepted. Cluster names
// are DNS-1123 labels, and Karmada caps them at 48 characters because it
// derives a per-cluster namespace name ("karmada-es-" + name) from them.
const ClusterNameMaxLength = 48

// ValidateClusterName returns why name is no valid cluster name: empty,
// longer than ClusterNameMaxLength, or not a DNS-1123 label (lowercase
// alphanumerics and '-', starting and ending with an alphanumeric). It
// returns nil for a valid name.
func ValidateClusterName(name string) []string {
	if name == "" {
		return []string{"must not be empty"}
	}
	if len(name) > ClusterNameMaxLength {
		return []string{fmt.Sprintf("must be no more than %d characters", ClusterNameMaxLength)}
	}
	return validation.IsDNS1123Label(name)
}

// ValidateSuspension checks s as an admission webhook would; fldPath is the
// path of the suspension block (for example spec.suspension). A nil s is
// valid.
//
// Rules:
//   - dispatching: true suspends every cluster, so it may not be combined with
//     a non-empty dispatchingOnClusters.clusterNames (the list would be
//     meaningless, and lifting the switch would suddenly make it matter).
//     dispatching: false with a list is accepted: false only says "not all".
//   - every listed cluster name passes ValidateClusterName;
//   - no name is listed twice.
func ValidateSuspension(s *Suspension, fldPath *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	if s.DispatchingOnClusters == nil {
		return nil
	}
	var errs field.ErrorList
	namesPath := fldPath.Child("dispatchingOnClusters", "clusterNames")
	names := s.DispatchingOnClusters.ClusterNames
	if s.Dispatching != nil && *s.Dispatching && len(names) > 0 {
		errs = append(errs, field.Forbidden(namesPath,
			"may not be set while dispatching is true: dispatching suspends every cluster already"))
	}
	seen := make(map[string]struct{}, len(names))
	for i, name := range names {
		p := namesPath.Index(i)
		if name == "" {
			errs = append(errs, field.Required(p, "cluster name must not be empty"))
			continue
		}
		for _, msg := range ValidateClusterName(name) {
			errs = append(errs, field.Invalid(p, name, msg))
		}
		if _, dup := seen[name]; dup {
			errs = append(errs, field.Duplicate(p, name))
			continue
		}
		seen[name] = struct{}{}
	}
	return errs
}
