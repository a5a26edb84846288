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

// statusUpdate collects the status changes one reconcile makes to an
// object and sends them as one patch of the status subresource. The status
// cannot ride on a spec write (the API server ignores status in a write to
// the main resource, and spec in a write to /status), but every status
// change a reconcile decides on (the scheduler's observed generation, a
// condition) shares this one write, and nothing is sent when none of them
// changes anything. A controller adding a status field or condition adds a
// mutation here instead of writing on its own.
type statusUpdate struct {
	mutations []func(client.Object) bool
}

// add records one status change. Like patchObject's mutate, mutate must be
// a function of the object it is given (it runs again on the object read
// after a conflict) and reports whether it changed anything.
func (u *statusUpdate) add(mutate func(client.Object) bool) {
	u.mutations = append(u.mutations, mutate)
}

// apply sends the collected changes as one JSON merge patch of the status,
// with the resourceVersion of obj. obj is the latest copy the reconcile
// holds, typically the object a spec patch returned: the first attempt
// patches from it without reading, and a conflict reads the object again
// and re-applies every change.
func (u *statusUpdate) apply(ctx context.Context, c client.Client, obj client.Object) error {
	if len(u.mutations) == 0 {
		return nil
	}
	key := client.ObjectKeyFromObject(obj)
	first := true
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if !first {
			if err := c.Get(ctx, key, obj); err != nil {
				return err
			}
		}
		first = false
		base := obj.DeepCopyObject().(client.Object)
		changed := false
		for _, mutate := range u.mutations {
			if mutate(obj) {
				changed = true
			}
		}
		if !changed {
			return nil
		}
		return c.Status().Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}), FieldOwner)
	})
}
