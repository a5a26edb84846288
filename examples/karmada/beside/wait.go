package beside

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// WaitFor waits until cond holds for the object of obj's kind, namespace
// and name, or ctx ends. cond is given the object as the API server has it
// (nil once it does not exist, or before it does). The object is read once
// and then followed through a watch: a long wait costs the changes it
// sees, not a read of the whole object at every look (a Cluster, with the
// API enablements of its member, is some kilobytes).
func (cp *ControlPlane) WaitFor(ctx context.Context, obj client.Object, cond func(client.Object) bool) error {
	c := cp.Client
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return err
	}
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	newList := func() (client.ObjectList, error) {
		l, err := c.Scheme().New(listGVK)
		if err != nil {
			return nil, err
		}
		list, ok := l.(client.ObjectList)
		if !ok {
			return nil, fmt.Errorf("%s is not a list", listGVK)
		}
		return list, nil
	}
	if _, err := newList(); err != nil {
		return err
	}
	selector := fields.OneTermEqualSelector("metadata.name", obj.GetName()).String()
	options := func(opts metav1.ListOptions) *client.ListOptions {
		opts.FieldSelector = selector
		return &client.ListOptions{Namespace: obj.GetNamespace(), Raw: &opts}
	}
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			list, err := newList()
			if err != nil {
				return nil, err
			}
			return list, c.List(ctx, list, options(opts))
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			list, err := newList()
			if err != nil {
				return nil, err
			}
			return c.Watch(ctx, list, options(opts))
		},
	}
	holds := func(o runtime.Object) bool {
		if o == nil {
			return cond(nil)
		}
		co, ok := o.(client.Object)
		return ok && cond(co)
	}
	_, err = watchtools.UntilWithSync(ctx, lw, obj.DeepCopyObject(),
		func(store toolscache.Store) (bool, error) {
			items := store.List()
			if len(items) == 0 {
				return holds(nil), nil
			}
			return holds(items[0].(runtime.Object)), nil
		},
		func(ev watch.Event) (bool, error) {
			if ev.Type == watch.Deleted {
				return holds(nil), nil
			}
			return holds(ev.Object), nil
		})
	return err
}
