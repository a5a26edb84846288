package beside_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/fleetover/fleetover/examples/karmada/beside"
)

// deploy/ is installed the way an operator installs it: configuration F
// runs its two components with the arguments of their Deployments and as
// the ServiceAccounts of their karmada-apiserver bases (installFleetover),
// through every scenario of this package. checkRBAC then proves the bases'
// RBAC is what the code needs: no request was forbidden, and every rule is
// the only one that allowed some request.

const (
	deployDir          = "../../../deploy"
	managerComponent   = "fleetover-controller-manager"
	schedulerComponent = "fleetover-karmada-scheduler"
)

func serviceAccountUser(name string) string {
	return "system:serviceaccount:" + beside.NamespaceSystem + ":" + name
}

// deploymentArgs returns the arguments of a component's Deployment
// (deploy/<component>/host) less those the harness sets itself: the
// kubeconfig and the addresses, which name the pod's IP there.
func deploymentArgs(component string) ([]string, error) {
	objs, err := beside.Kustomize(filepath.Join(deployDir, component, "host"))
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		containers, _, err := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		if err != nil || len(containers) != 1 {
			return nil, fmt.Errorf("%s: want one container: %v", component, err)
		}
		args, _, err := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
		if err != nil {
			return nil, err
		}
		return slices.DeleteFunc(args, func(a string) bool {
			for _, own := range []string{"--kubeconfig=", "--metrics-bind-address=", "--health-probe-bind-address="} {
				if strings.HasPrefix(a, own) {
					return true
				}
			}
			return false
		}), nil
	}
	return nil, fmt.Errorf("%s: no Deployment in deploy/%s/host", component, component)
}

// request is one distinct request of the audit log, which a
// SubjectAccessReview asks about again.
type request beside.AuditRequest

func (r request) String() string { return beside.AuditRequest(r).String() }

func (r request) review() *authorizationv1.SubjectAccessReview {
	ns := strings.TrimPrefix(r.User, "system:serviceaccount:")
	ns, _, _ = strings.Cut(ns, ":")
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   r.User,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}}
	if r.Path != "" {
		sar.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: r.Path, Verb: r.Verb}
	} else {
		sar.Spec.ResourceAttributes = &authorizationv1.ResourceAttributes{
			Verb: r.Verb, Group: r.APIGroup, Resource: r.Resource, Subresource: r.Subresource, Namespace: r.Namespace, Name: r.Name,
		}
	}
	return sar
}

// checkRBAC reads the audit log of configuration F's control plane: a
// forbidden request of either component is an error. After a full run it
// also removes each rule of the components' roles in turn and asks the
// API server (SubjectAccessReview) about every distinct request the
// component made: some request must then be denied, or the rule is one
// the code does not need.
func checkRBAC(ctx context.Context, cp *beside.ControlPlane, full bool) error {
	if cp == nil {
		return nil
	}
	records, err := cp.Audit()
	if err != nil {
		return err
	}
	var forbidden []string
	made := map[string]map[request]bool{}
	for _, r := range records {
		if !slices.Contains(cp.AuditUsers, r.User) {
			continue // another user's write (Options.AuditWrites)
		}
		if r.Forbidden() {
			forbidden = append(forbidden, r.String())
			continue
		}
		if made[r.User] == nil {
			made[r.User] = map[request]bool{}
		}
		made[r.User][request(r.AuditRequest)] = true
	}
	if len(forbidden) > 0 {
		slices.Sort(forbidden)
		forbidden = slices.Compact(forbidden)
		return fmt.Errorf("deploy/'s RBAC forbade %d distinct request(s) of the components:\n  %s", len(forbidden), strings.Join(forbidden, "\n  "))
	}
	if !full {
		return nil
	}
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	var errs []error
	checked := 0
	for _, component := range []string{managerComponent, schedulerComponent} {
		reqs := made[serviceAccountUser(component)]
		if len(reqs) == 0 {
			errs = append(errs, fmt.Errorf("%s made no request: did it run as its ServiceAccount?", component))
			continue
		}
		objs, err := beside.Kustomize(filepath.Join(deployDir, component, "karmada-apiserver"))
		if err != nil {
			return err
		}
		for _, o := range objs {
			if o.GetKind() != "ClusterRole" && o.GetKind() != "Role" {
				continue
			}
			rules, err := everyRuleNeeded(ctx, cp.Client, cs, o, reqs)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", component, err))
			}
			checked += rules
		}
	}
	if len(errs) == 0 {
		fmt.Printf("deploy/'s RBAC: no request of %s (%d distinct) or %s (%d distinct) forbidden; each of the %d rules of their roles is the only one allowing one of them\n",
			managerComponent, len(made[serviceAccountUser(managerComponent)]), schedulerComponent, len(made[serviceAccountUser(schedulerComponent)]), checked)
	}
	return errors.Join(errs...)
}

// everyRuleNeeded removes each rule of role in turn and checks that one of
// reqs is then denied; the role is restored after each. It returns how many
// rules it checked.
func everyRuleNeeded(ctx context.Context, c client.Client, cs kubernetes.Interface, role *unstructured.Unstructured, reqs map[request]bool) (int, error) {
	var rules []rbacv1.PolicyRule
	raw, _, _ := unstructured.NestedSlice(role.Object, "rules")
	for _, r := range raw {
		var rule rbacv1.PolicyRule
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(r.(map[string]any), &rule); err != nil {
			return 0, err
		}
		rules = append(rules, rule)
	}
	allowed := func() (denied []request, err error) {
		for r := range reqs {
			res, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, r.review(), metav1.CreateOptions{})
			if err != nil {
				return nil, err
			}
			if !res.Status.Allowed {
				denied = append(denied, r)
			}
		}
		return denied, nil
	}
	// The authorizer reads roles from a cache: wait for it to see each
	// change.
	settle := func(want func([]request) bool) ([]request, error) {
		end := time.Now().Add(10 * time.Second)
		for {
			denied, err := allowed()
			if err != nil || want(denied) || time.Now().After(end) {
				return denied, err
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	set := func(rules []rbacv1.PolicyRule) error {
		r := role.DeepCopy()
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&struct {
			Rules []rbacv1.PolicyRule `json:"rules"`
		}{rules})
		if err != nil {
			return err
		}
		r.Object["rules"] = u["rules"]
		return beside.Apply(ctx, c, []*unstructured.Unstructured{r}, false)
	}
	if denied, err := settle(func(d []request) bool { return len(d) == 0 }); err != nil || len(denied) > 0 {
		return 0, fmt.Errorf("%s %s with every rule denies %v (%v)", role.GetKind(), role.GetName(), denied, err)
	}
	var unused []string
	for i, rule := range rules {
		if err := set(slices.Delete(slices.Clone(rules), i, i+1)); err != nil {
			return 0, err
		}
		denied, err := settle(func(d []request) bool { return len(d) > 0 })
		if err != nil {
			return 0, err
		}
		if len(denied) == 0 {
			unused = append(unused, fmt.Sprintf("rule %d (%s)", i, ruleString(rule)))
		}
		if err := set(rules); err != nil {
			return 0, err
		}
		if _, err := settle(func(d []request) bool { return len(d) == 0 }); err != nil {
			return 0, err
		}
	}
	if len(unused) > 0 {
		return len(rules), fmt.Errorf("%s %s: no request of the run needs %s", role.GetKind(), role.GetName(), strings.Join(unused, ", "))
	}
	return len(rules), nil
}

func ruleString(r rbacv1.PolicyRule) string {
	if len(r.NonResourceURLs) > 0 {
		return fmt.Sprintf("%v %v", r.Verbs, r.NonResourceURLs)
	}
	return fmt.Sprintf("%v %v.%v", r.Verbs, r.Resources, r.APIGroups)
}

// TestDeployManifests: every kustomization under deploy/ builds, and what
// it builds is valid for its API server, checked by a server-side dry run:
// the karmada-apiserver bases on Karmada's control plane (configuration
// K's, where nothing else applies them), the host bases on a member
// cluster's kube-apiserver, standing for the cluster that hosts Karmada.
func TestDeployManifests(t *testing.T) {
	ctx := t.Context()
	host := members[0].Client
	if err := host.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: beside.NamespaceSystem}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for _, component := range []string{managerComponent, schedulerComponent} {
		for _, part := range []struct {
			dir string
			c   client.Client
		}{{"karmada-apiserver", planes[beside.KarmadaAlone].Client}, {"host", host}} {
			t.Run(component+"/"+part.dir, func(t *testing.T) {
				objs, err := beside.Kustomize(filepath.Join(deployDir, component, part.dir))
				if err != nil {
					t.Fatal(err)
				}
				if len(objs) == 0 {
					t.Fatal("the kustomization builds nothing")
				}
				if err := beside.Apply(ctx, part.c, objs, true); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestKarmadaValues: deploy/karmada-values.yaml turns off in Karmada's
// chart what configuration F turns off in karmada-controller-manager (the
// controllers fleetover-controller-manager replaces, the taint manager)
// and karmada-scheduler.
func TestKarmadaValues(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(deployDir, "karmada-values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		ControllerManager struct {
			Controllers      string            `json:"controllers"`
			ExtraCommandArgs map[string]string `json:"extraCommandArgs"`
		} `json:"controllerManager"`
		Scheduler struct {
			ReplicaCount *int `json:"replicaCount"`
		} `json:"scheduler"`
	}
	if err := yaml.UnmarshalStrict(raw, &values); err != nil {
		t.Fatal(err)
	}
	var disabled []string
	for _, c := range strings.Split(values.ControllerManager.Controllers, ",") {
		if name, ok := strings.CutPrefix(c, "-"); ok {
			disabled = append(disabled, name)
		}
	}
	want := beside.ReplacedControllers()
	slices.Sort(disabled)
	slices.Sort(want)
	if !slices.Equal(disabled, want) || !strings.HasPrefix(values.ControllerManager.Controllers, "*,") {
		t.Errorf("controllerManager.controllers %q: want '*' less %v", values.ControllerManager.Controllers, want)
	}
	if got := values.ControllerManager.ExtraCommandArgs["enable-taint-manager"]; got != "false" {
		t.Errorf("controllerManager.extraCommandArgs.enable-taint-manager = %q, want \"false\"", got)
	}
	if values.Scheduler.ReplicaCount == nil || *values.Scheduler.ReplicaCount != 0 {
		t.Errorf("scheduler.replicaCount %v: want 0, fleetover-karmada-scheduler in its place", values.Scheduler.ReplicaCount)
	}
}
