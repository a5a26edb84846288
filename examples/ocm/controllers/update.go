package controllers

import (
	"context"

	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// update reads the latest object into obj, applies mutate and, when mutate
// reports a change, writes it back. The write carries the resourceVersion
// that was read, so a concurrent change makes it fail with a conflict
// instead of being overwritten; the loop then reads again and re-applies
// mutate to the fresh object. mutate must therefore be a function of the
// object it is given. status selects the status subresource.
func update[T client.Object](ctx context.Context, c client.Client, key client.ObjectKey, obj T, status bool, mutate func(T) bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, key, obj); err != nil {
			return err
		}
		if !mutate(obj) {
			return nil
		}
		if status {
			return c.Status().Update(ctx, obj)
		}
		return c.Update(ctx, obj)
	})
}
