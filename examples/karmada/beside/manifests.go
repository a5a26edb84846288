package beside

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Kustomize builds the kustomization in dir as `kubectl kustomize dir`
// does and returns its objects, in the order kustomize emits them.
func Kustomize(dir string) ([]*unstructured.Unstructured, error) {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize %s: %w", dir, err)
	}
	var objs []*unstructured.Unstructured
	for _, r := range resources.Resources() {
		// Through JSON: kustomize's maps hold Go ints, which unstructured
		// objects do not (their numbers are int64).
		raw, err := r.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("kustomize %s: %s: %w", dir, r.CurId(), err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("kustomize %s: %s: %w", dir, r.CurId(), err)
		}
		objs = append(objs, u)
	}
	return objs, nil
}

// Apply creates or updates objs with server-side apply, as the field
// manager "beside-harness"; dryRun asks the API server to validate and
// admit them without storing them.
func Apply(ctx context.Context, c client.Client, objs []*unstructured.Unstructured, dryRun bool) error {
	opts := []client.PatchOption{client.ForceOwnership, client.FieldOwner("beside-harness")}
	if dryRun {
		opts = append(opts, client.DryRunAll)
	}
	for _, o := range objs {
		o = o.DeepCopy()
		o.SetManagedFields(nil)
		//nolint:staticcheck // server-side apply of unstructured objects, which the typed Apply does not take.
		if err := c.Patch(ctx, o, client.Apply, opts...); err != nil {
			return fmt.Errorf("apply %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
	return nil
}
