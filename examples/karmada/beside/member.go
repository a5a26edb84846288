package beside

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Member is a member cluster: a kube-apiserver and etcd of its own, and a
// stand-in for the kubelet and the controllers that would run there,
// which writes every Deployment's status.
type Member struct {
	// Endpoint is the member's API server, as a Cluster's apiEndpoint.
	Endpoint string
	// Config reaches the member as an administrator.
	Config *rest.Config
	// Client reads and writes the member's objects.
	Client client.Client

	env   *envtest.Environment
	token string
	ca    []byte

	mu sync.Mutex
	// unhealthy says which Deployments the stand-in reports as not
	// progressing; nil reports every one ready. It starts as
	// ImagePrefix("fake/"): Karmada's e2e makes a workload fail with an
	// image of a registry named fake, which no node could pull.
	unhealthy func(*appsv1.Deployment) bool
	// queue holds the Deployments whose status the stand-in writes next;
	// lister reads them from its informer.
	queue  workqueue.TypedRateLimitingInterface[toolscache.ObjectName]
	lister appslisters.DeploymentLister
	cancel context.CancelFunc
	done   chan struct{}
	// stopNamespaces stops the stand-in for kube-controller-manager's
	// namespace controller, which completes the deletion of a namespace
	// (a stage's, when it ends).
	stopNamespaces func()
}

// StartMember starts a member cluster's API server and its stand-in, and
// creates the service account whose token Karmada's Push-mode controllers
// use, as karmadactl join does.
func StartMember(ctx context.Context, assets string) (m *Member, err error) {
	if assets == "" {
		assets = os.Getenv("KUBEBUILDER_ASSETS")
	}
	m = &Member{env: &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: 2 * time.Minute}, unhealthy: ImagePrefix("fake/")}
	defer func() {
		if err != nil {
			m.Stop()
			m = nil
		}
	}()
	if m.Config, err = m.env.Start(); err != nil {
		return nil, fmt.Errorf("start a member cluster (kube-apiserver and etcd from %s): %w", assets, err)
	}
	if m.stopNamespaces, err = startNamespaceController(m.Config); err != nil {
		return nil, err
	}
	m.Endpoint = strings.TrimSuffix(m.Config.Host, "/")
	m.ca = m.Config.CAData
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, rbacv1.AddToScheme, admissionregistrationv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	if m.Client, err = client.New(m.Config, client.Options{Scheme: scheme}); err != nil {
		return nil, err
	}
	if m.token, err = m.joinToken(ctx); err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(context.Background())
	m.cancel, m.done = cancel, make(chan struct{})
	started := make(chan error, 1)
	go m.runStandIn(sctx, started)
	if err := <-started; err != nil {
		return nil, err
	}
	return m, nil
}

// joinToken creates the service account Karmada reaches the member as,
// bound to cluster-admin, and returns a token for it.
func (m *Member) joinToken(ctx context.Context) (string, error) {
	const ns, name = "karmada-cluster", "karmada-member"
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
		},
	} {
		if err := m.Client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", err
		}
	}
	cs, err := kubernetes.NewForConfig(m.Config)
	if err != nil {
		return "", err
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(24 * 60 * 60))},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for Karmada in the member cluster: %w", err)
	}
	return tr.Status.Token, nil
}

// Join registers the member with cp as a Push-mode Cluster named name:
// the secret with its token and CA in karmada-cluster, and the Cluster
// pointing at it, as karmadactl join writes them. labels go on the
// Cluster.
func (m *Member) Join(ctx context.Context, cp *ControlPlane, name, zone string, labels map[string]string) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: NamespaceCluster, Name: name},
		Data:       map[string][]byte{"token": []byte(m.token), "caBundle": m.ca},
	}
	if err := cp.Client.Create(ctx, secret); err != nil {
		return fmt.Errorf("secret of cluster %s: %w", name, err)
	}
	cl := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: clusterv1alpha1.ClusterSpec{
			SyncMode:    clusterv1alpha1.Push,
			Zone:        zone,
			APIEndpoint: m.Endpoint,
			SecretRef:   &clusterv1alpha1.LocalSecretReference{Namespace: NamespaceCluster, Name: name},
		},
	}
	if err := cp.Client.Create(ctx, cl); err != nil {
		return fmt.Errorf("cluster %s: %w", name, err)
	}
	return nil
}

// Unjoin removes the Push-mode Cluster name from cp as karmadactl unjoin
// does: it deletes the Cluster, waits until Karmada has removed it (its
// execution space, and the copies of its Works on the member when Karmada
// can reach it), and only then deletes the secret Karmada reaches the
// member with. The order matters: without the secret, Karmada cannot
// delete the copies of a Ready cluster, so the Cluster and its execution
// space stay Terminating, and Karmada keeps collecting the cluster's
// status and retrying its Works for as long as the control plane runs.
// ctx bounds the wait.
func (cp *ControlPlane) Unjoin(ctx context.Context, name string) error {
	cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := cp.Client.Delete(ctx, cl); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete cluster %s: %w", name, err)
	}
	err := cp.WaitFor(ctx, cl, func(o client.Object) bool {
		if o != nil {
			cl = o.(*clusterv1alpha1.Cluster)
		}
		return o == nil
	})
	if err != nil {
		return fmt.Errorf("cluster %s not removed by Karmada (finalizers %v, conditions %+v; its execution namespace holds %s): %w",
			name, cl.Finalizers, cl.Status.Conditions, cp.executionSpaceHolds(name), err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: NamespaceCluster, Name: name}}
	if err := cp.Client.Delete(ctx, secret); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("secret of cluster %s: %w", name, err)
	}
	return nil
}

// executionSpaceHolds describes what the execution namespace of cluster
// name holds, for an error message.
func (cp *ControlPlane) executionSpaceHolds(name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ns := &corev1.Namespace{}
	if err := cp.Client.Get(ctx, client.ObjectKey{Name: controllers.ExecutionNamespace(name)}, ns); err != nil {
		return err.Error()
	}
	works := &workv1alpha1.WorkList{}
	if err := cp.Client.List(ctx, works, client.InNamespace(ns.Name)); err != nil {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "namespace %s deleted at %v, finalizers %v, %d Work(s)", ns.Name, ns.DeletionTimestamp, ns.Spec.Finalizers, len(works.Items))
	for _, w := range works.Items {
		fmt.Fprintf(&b, "; %s deleted at %v, finalizers %v", w.Name, w.DeletionTimestamp, w.Finalizers)
	}
	return b.String()
}

// SetUnhealthy sets which Deployments the stand-in reports as not
// progressing (their pods never ready); nil reports every one ready.
// Deployments already reported are reported again.
func (m *Member) SetUnhealthy(rule func(*appsv1.Deployment) bool) error {
	m.mu.Lock()
	m.unhealthy = rule
	queue, lister := m.queue, m.lister
	m.mu.Unlock()
	list, err := lister.List(labels.Everything())
	if err != nil {
		return err
	}
	for _, d := range list {
		queue.Add(toolscache.MetaObjectToName(d))
	}
	return nil
}

// RefuseDeploymentUpdates makes the member's API server refuse every
// update of a Deployment in namespace, as a member whose admission turns
// Karmada's apply down would (a ValidatingAdmissionPolicy and its
// binding; status updates still pass). It returns the function that lifts
// the refusal. The API server enforces a policy once its informers have
// it: the caller waits for the refusal to show.
func (m *Member) RefuseDeploymentUpdates(ctx context.Context, namespace string) (lift func(context.Context) error, err error) {
	name := "fleetover-test-refuse-" + namespace
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: namespace}},
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"},
						},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: "updates are refused by the test"}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	for _, obj := range []client.Object{policy, binding} {
		if err := m.Client.Create(ctx, obj); err != nil {
			return nil, fmt.Errorf("refuse Deployment updates in %s: %w", namespace, err)
		}
	}
	return func(ctx context.Context) error {
		for _, obj := range []client.Object{binding, policy} {
			if err := m.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("lift the refusal of Deployment updates in %s: %w", namespace, err)
			}
		}
		return nil
	}, nil
}

// runStandIn writes the status of every Deployment of the member as the
// kubelet and the deployment controller would: every replica updated,
// ready and available, unless the unhealthy rule says the pods never
// become ready. A write that fails is tried again (a workqueue, as a
// controller does): a status left unwritten would hold a scenario's
// workload at its last status for good.
func (m *Member) runStandIn(ctx context.Context, started chan<- error) {
	defer close(m.done)
	cs, err := kubernetes.NewForConfig(m.Config)
	if err != nil {
		started <- err
		return
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	deployments := factory.Apps().V1().Deployments()
	inf := deployments.Informer()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[toolscache.ObjectName](50*time.Millisecond, 2*time.Second))
	defer queue.ShutDown()
	enqueue := func(obj any) {
		if d, ok := obj.(*appsv1.Deployment); ok {
			queue.Add(toolscache.MetaObjectToName(d))
		}
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		started <- err
		return
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if !toolscache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		started <- fmt.Errorf("the member stand-in's Deployment informer did not sync")
		return
	}
	lister := deployments.Lister()
	m.mu.Lock()
	m.queue, m.lister = queue, lister
	m.mu.Unlock()
	started <- nil
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	for {
		key, shutdown := queue.Get()
		if shutdown {
			return
		}
		d, err := lister.Deployments(key.Namespace).Get(key.Name)
		if err == nil {
			err = m.report(ctx, d)
		}
		switch {
		case apierrors.IsNotFound(err), err == nil:
			queue.Forget(key)
		case ctx.Err() == nil:
			queue.AddRateLimited(key)
		}
		queue.Done(key)
	}
}

// report writes d's status if it differs from what the stand-in says.
func (m *Member) report(ctx context.Context, d *appsv1.Deployment) error {
	m.mu.Lock()
	rule := m.unhealthy
	m.mu.Unlock()
	replicas := ptr.Deref(d.Spec.Replicas, 1)
	want := appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation,
		Replicas:           replicas,
		UpdatedReplicas:    replicas,
		ReadyReplicas:      replicas,
		AvailableReplicas:  replicas,
	}
	if rule != nil && rule(d) {
		want.ReadyReplicas, want.AvailableReplicas, want.UnavailableReplicas = 0, 0, replicas
	}
	if d.Status.ObservedGeneration == want.ObservedGeneration && d.Status.Replicas == want.Replicas &&
		d.Status.UpdatedReplicas == want.UpdatedReplicas && d.Status.ReadyReplicas == want.ReadyReplicas &&
		d.Status.AvailableReplicas == want.AvailableReplicas && d.Status.UnavailableReplicas == want.UnavailableReplicas {
		return nil
	}
	cur := d.DeepCopy()
	cur.Status = want
	err := m.Client.Status().Update(ctx, cur)
	if apierrors.IsConflict(err) {
		// A newer version is on its way to the informer: it is reported then.
		return nil
	}
	return err
}

// Stop stops the stand-in and the member's API server and etcd.
func (m *Member) Stop() {
	if m.cancel != nil {
		m.cancel()
		<-m.done
	}
	if m.stopNamespaces != nil {
		m.stopNamespaces()
	}
	if m.env != nil {
		_ = m.env.Stop()
	}
}

// ImagePrefix is a stand-in rule: a Deployment with a container whose
// image starts with prefix never gets ready pods.
func ImagePrefix(prefix string) func(*appsv1.Deployment) bool {
	return func(d *appsv1.Deployment) bool {
		for _, c := range d.Spec.Template.Spec.Containers {
			if strings.HasPrefix(c.Image, prefix) {
				return true
			}
		}
		return false
	}
}
