package beside

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// namespaceController stands in for kube-controller-manager's namespace
// controller, which envtest does not run: without it a deleted namespace
// stays Terminating for ever. It deletes what a Terminating namespace
// still holds and, once nothing is left, removes the namespace's
// finalizer, so the deletion completes as on a real cluster. Karmada
// depends on it: its cluster controller removes a Cluster only once the
// cluster's execution namespace is gone, and until then keeps collecting
// the cluster's status and retrying its Works.
type namespaceController struct {
	client    kubernetes.Interface
	metadata  metadata.Interface
	discovery discovery.CachedDiscoveryInterface
	lister    corelisters.NamespaceLister
	queue     workqueue.TypedRateLimitingInterface[string]

	mu sync.Mutex
	// left are the resources a namespace still held at its last look:
	// a later look lists only those (what was deleted stays deleted).
	left map[string][]schema.GroupVersionResource
}

// parallelLooks bounds the requests one namespace's look makes at a time.
const parallelLooks = 8

// startNamespaceController starts a namespace controller on the API server
// cfg reaches; the function it returns stops it.
func startNamespaceController(cfg *rest.Config) (stop func(), err error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	namespaces := factory.Core().V1().Namespaces()
	nc := &namespaceController{
		client:    cs,
		metadata:  md,
		discovery: memory.NewMemCacheClient(cs.Discovery()),
		lister:    namespaces.Lister(),
		// The real controller looks again at a namespace that still
		// holds objects (their finalizers are other controllers' to
		// remove); so does this one, soon at first.
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 2*time.Second)),
		left:  map[string][]schema.GroupVersionResource{},
	}
	enqueue := func(obj any) {
		if ns, ok := obj.(*corev1.Namespace); ok && ns.DeletionTimestamp != nil {
			nc.queue.Add(ns.Name)
		}
	}
	if _, err := namespaces.Informer().AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for nc.next(ctx) {
			}
		})
	}
	return func() {
		cancel()
		nc.queue.ShutDown()
		wg.Wait()
		factory.Shutdown()
	}, nil
}

// next handles one namespace of the queue; false once the queue is shut
// down.
func (nc *namespaceController) next(ctx context.Context) bool {
	name, shutdown := nc.queue.Get()
	if shutdown {
		return false
	}
	defer nc.queue.Done(name)
	done, err := nc.sync(ctx, name)
	if err != nil || !done {
		nc.queue.AddRateLimited(name)
		return true
	}
	nc.queue.Forget(name)
	return true
}

// sync deletes what the Terminating namespace name holds and finalizes it
// once it holds nothing; it reports whether the namespace is done with.
func (nc *namespaceController) sync(ctx context.Context, name string) (bool, error) {
	ns, err := nc.lister.Get(name)
	if apierrors.IsNotFound(err) {
		nc.forget(name)
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return true, nil
	}
	resources, err := nc.resources(name)
	if err != nil {
		return false, err
	}
	// The kinds are looked at side by side: a first look goes through
	// every namespaced resource of the API server.
	held := make([]bool, len(resources))
	errs := make([]error, len(resources))
	sem := make(chan struct{}, parallelLooks)
	var wg sync.WaitGroup
	for i, gvr := range resources {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			held[i], errs[i] = nc.empty(ctx, name, gvr)
		})
	}
	wg.Wait()
	var left []schema.GroupVersionResource
	for i, gvr := range resources {
		if held[i] || errs[i] != nil {
			left = append(left, gvr)
		}
	}
	nc.mu.Lock()
	nc.left[name] = left
	nc.mu.Unlock()
	if len(left) > 0 {
		return false, errors.Join(errs...)
	}
	finalized := ns.DeepCopy()
	finalized.Spec.Finalizers = slices.DeleteFunc(finalized.Spec.Finalizers, func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
	if _, err := nc.client.CoreV1().Namespaces().Finalize(ctx, finalized, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("finalize namespace %s: %w", name, err)
	}
	nc.forget(name)
	return true, nil
}

// resources are the kinds of objects namespace name may still hold: at
// the first look every namespaced resource the API server serves that can
// be listed and deleted, later those the last look found.
func (nc *namespaceController) resources(name string) ([]schema.GroupVersionResource, error) {
	nc.mu.Lock()
	left, seen := nc.left[name]
	nc.mu.Unlock()
	if seen {
		return left, nil
	}
	// A group whose API service does not answer (an aggregated one not up
	// yet) is left out: what discovery found is still deleted.
	lists, err := nc.discovery.ServerPreferredNamespacedResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, err
	}
	var out []schema.GroupVersionResource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if slices.Contains(r.Verbs, "list") && slices.Contains(r.Verbs, "delete") {
				out = append(out, gv.WithResource(r.Name))
			}
		}
	}
	return out, nil
}

// empty deletes every object of gvr in namespace and reports whether any
// is still there (deleted, waiting on its finalizers).
func (nc *namespaceController) empty(ctx context.Context, namespace string, gvr schema.GroupVersionResource) (bool, error) {
	client := nc.metadata.Resource(gvr).Namespace(namespace)
	list, err := client.List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("list %s in %s: %w", gvr, namespace, err)
	}
	for i := range list.Items {
		obj := &list.Items[i]
		if obj.DeletionTimestamp != nil {
			continue
		}
		if err := client.Delete(ctx, obj.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return true, fmt.Errorf("delete %s %s/%s: %w", gvr, namespace, obj.Name, err)
		}
	}
	return len(list.Items) > 0, nil
}

func (nc *namespaceController) forget(name string) {
	nc.mu.Lock()
	delete(nc.left, name)
	nc.mu.Unlock()
}
