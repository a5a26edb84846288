package controllers

import (
	"context"

	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/fleetover/fleetover/examples/karmada/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// updateBinding reads the latest binding, applies mutate and, when mutate
// reports a change, writes it back. The write carries the resourceVersion
// that was read, so a concurrent change makes it fail with a conflict
// instead of being overwritten; the loop then reads again and re-applies
// mutate to the fresh object (Karmada #7483). mutate must therefore be a
// function of the object it is given.
func updateBinding(ctx context.Context, c client.Client, key client.ObjectKey, mutate func(*workv1alpha2.ResourceBinding) bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		rb := &workv1alpha2.ResourceBinding{}
		if err := c.Get(ctx, key, rb); err != nil {
			return err
		}
		if !mutate(rb) {
			return nil
		}
		return c.Update(ctx, rb)
	})
}

// updateBindingStatus is updateBinding for the status subresource.
func updateBindingStatus(ctx context.Context, c client.Client, key client.ObjectKey, mutate func(*workv1alpha2.ResourceBinding) bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		rb := &workv1alpha2.ResourceBinding{}
		if err := c.Get(ctx, key, rb); err != nil {
			return err
		}
		if !mutate(rb) {
			return nil
		}
		return c.Status().Update(ctx, rb)
	})
}

// updateCluster is updateBinding for a Cluster's spec and metadata.
func updateCluster(ctx context.Context, c client.Client, name string, mutate func(*clusterv1alpha1.Cluster) bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := &clusterv1alpha1.Cluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, cl); err != nil {
			return err
		}
		if !mutate(cl) {
			return nil
		}
		return c.Update(ctx, cl)
	})
}

// updateClusterStatus is updateCluster for the status subresource.
func updateClusterStatus(ctx context.Context, c client.Client, name string, mutate func(*clusterv1alpha1.Cluster) bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := &clusterv1alpha1.Cluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, cl); err != nil {
			return err
		}
		if !mutate(cl) {
			return nil
		}
		return c.Status().Update(ctx, cl)
	})
}
