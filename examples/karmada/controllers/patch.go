package controllers

import (
	"context"

	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FieldOwner names fleetover's controllers in managedFields.
const FieldOwner = client.FieldOwner("fleetover")

// patchObject reads the latest obj (its kind and key are taken from obj),
// applies mutate and, when mutate reports a change, sends only the fields
// mutate changed as a JSON merge patch carrying the resourceVersion that
// was read. Fields the Go types do not know and fields mutate did not
// touch are not in the patch, so the server keeps them; Karmada's lists
// (spec.clusters, spec.gracefulEvictionTasks, status.conditions, ...) have
// no list-type markers and go whole into a patch that changes them, and
// the optimistic lock turns a concurrent change into a conflict, after
// which the loop reads again and re-applies mutate (Karmada #7483). mutate
// must therefore be a function of the object it is given.
func patchObject(ctx context.Context, c client.Client, obj client.Object, mutate func(client.Object) bool) error {
	return patchLatest(ctx, c, obj, mutate, false)
}

// patchStatus is patchObject for the status subresource.
func patchStatus(ctx context.Context, c client.Client, obj client.Object, mutate func(client.Object) bool) error {
	return patchLatest(ctx, c, obj, mutate, true)
}

func patchLatest(ctx context.Context, c client.Client, obj client.Object, mutate func(client.Object) bool, status bool) error {
	key := client.ObjectKeyFromObject(obj)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, key, obj); err != nil {
			return err
		}
		base := obj.DeepCopyObject().(client.Object)
		if !mutate(obj) {
			return nil
		}
		patch := client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})
		if status {
			return c.Status().Patch(ctx, obj, patch, FieldOwner)
		}
		return c.Patch(ctx, obj, patch, FieldOwner)
	})
}
