package plugins

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// InformerAnnotations is Annotations from metadata-only informers on the
// Karmada API server: they cache the objects' metadata alone, so the
// bindings' specs and statuses, which karmada-scheduler's own informers
// already hold, are not cached twice.
type InformerAnnotations struct {
	factory                                 metadatainformer.SharedInformerFactory
	rb, crb, pp, cpp                        cache.GenericLister
	rbSynced, crbSynced, ppSynced, cpSynced cache.InformerSynced
}

var _ Annotations = &InformerAnnotations{}

// NewInformerAnnotations returns the informers on client; Start them
// before the scheduler runs.
func NewInformerAnnotations(client metadata.Interface, resync time.Duration) *InformerAnnotations {
	f := metadatainformer.NewSharedInformerFactory(client, resync)
	a := &InformerAnnotations{factory: f}
	for _, x := range []struct {
		gvr    schema.GroupVersionResource
		lister *cache.GenericLister
		synced *cache.InformerSynced
	}{
		{schema.GroupVersionResource{Group: "work.karmada.io", Version: "v1alpha2", Resource: "resourcebindings"}, &a.rb, &a.rbSynced},
		{schema.GroupVersionResource{Group: "work.karmada.io", Version: "v1alpha2", Resource: "clusterresourcebindings"}, &a.crb, &a.crbSynced},
		{schema.GroupVersionResource{Group: "policy.karmada.io", Version: "v1alpha1", Resource: "propagationpolicies"}, &a.pp, &a.ppSynced},
		{schema.GroupVersionResource{Group: "policy.karmada.io", Version: "v1alpha1", Resource: "clusterpropagationpolicies"}, &a.cpp, &a.cpSynced},
	} {
		inf := f.ForResource(x.gvr)
		*x.lister, *x.synced = inf.Lister(), inf.Informer().HasSynced
	}
	return a
}

// Start starts the informers and waits until their caches are filled, or
// ctx ends (an error).
func (a *InformerAnnotations) Start(ctx context.Context) error {
	a.factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), a.rbSynced, a.crbSynced, a.ppSynced, a.cpSynced) {
		return fmt.Errorf("the caches of bindings and propagation policies did not sync: %w", context.Cause(ctx))
	}
	return nil
}

// Binding implements Annotations.
func (a *InformerAnnotations) Binding(namespace, name string) (map[string]string, bool) {
	if namespace == "" {
		return get(a.crb, namespace, name)
	}
	return get(a.rb, namespace, name)
}

// Policy implements Annotations.
func (a *InformerAnnotations) Policy(namespace, name string) (map[string]string, bool) {
	if namespace == "" {
		return get(a.cpp, namespace, name)
	}
	return get(a.pp, namespace, name)
}

func get(l cache.GenericLister, namespace, name string) (map[string]string, bool) {
	var obj any
	var err error
	if namespace == "" {
		obj, err = l.Get(name)
	} else {
		obj, err = l.ByNamespace(namespace).Get(name)
	}
	if err != nil {
		return nil, false
	}
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return nil, false
	}
	return m.Annotations, true
}
