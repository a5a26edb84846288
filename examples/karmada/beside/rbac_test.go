package beside_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	"k8s.io/component-helpers/auth/rbac/validation"
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

// review is the SubjectAccessReview of the request, made by user (by the
// request's own user when user is empty) with the groups of the request's
// user.
func (r request) review(user string) *authorizationv1.SubjectAccessReview {
	groups := []string{"system:authenticated"}
	if ns, ok := strings.CutPrefix(r.User, "system:serviceaccount:"); ok {
		ns, _, _ = strings.Cut(ns, ":")
		groups = append(groups, "system:serviceaccounts", "system:serviceaccounts:"+ns)
	}
	if user == "" {
		user = r.User
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups}}
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
		rules, err := everyRuleNeeded(ctx, cp.Client, cs, component, objs, slices.Collect(maps.Keys(reqs)))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", component, err))
		}
		checked += rules
	}
	if len(errs) == 0 {
		fmt.Printf("deploy/'s RBAC: no request of %s (%d distinct) or %s (%d distinct) forbidden; each of the %d rules of their roles is the only one allowing one of them\n",
			managerComponent, len(made[serviceAccountUser(managerComponent)]), schedulerComponent, len(made[serviceAccountUser(schedulerComponent)]), checked)
	}
	return errors.Join(errs...)
}

// everyRuleNeeded checks that each rule of the component's roles (objs,
// its deploy/ base for karmada-apiserver) is the only one that allows
// some of reqs, the distinct requests it made. The API server's own
// authorizer decides, for a probe user per rule: a user bound as the
// component's ServiceAccount is, with the same groups, but to a copy of
// the rule's role without that rule. Every probe is made at once and
// asked about side by side; some request must be denied to each. It
// returns how many rules it checked.
func everyRuleNeeded(ctx context.Context, c client.Client, cs kubernetes.Interface, component string, objs []*unstructured.Unstructured, reqs []request) (int, error) {
	sa := serviceAccountUser(component)
	if denied, err := deniedOf(ctx, cs, reqs, ""); err != nil || len(denied) > 0 {
		return 0, fmt.Errorf("its roles deny %v (%v)", denied, err)
	}
	type probe struct {
		user    string
		role    *unstructured.Unstructured
		rule    rbacv1.PolicyRule
		index   int
		allowed []request // the requests the rule alone allows
	}
	var probes []*probe
	var made []*unstructured.Unstructured
	for _, role := range objs {
		if role.GetKind() != "ClusterRole" && role.GetKind() != "Role" {
			continue
		}
		rules, err := policyRules(role)
		if err != nil {
			return 0, err
		}
		for i, rule := range rules {
			p := &probe{user: fmt.Sprintf("rbac-probe:%s:%s:%d", component, role.GetName(), i), role: role, rule: rule, index: i}
			for _, r := range reqs {
				if covered, _ := validation.Covers([]rbacv1.PolicyRule{rule}, []rbacv1.PolicyRule{r.rule()}); covered {
					p.allowed = append(p.allowed, r)
				}
			}
			probes = append(probes, p)
			if len(p.allowed) == 0 {
				continue // no request needs it: nothing to ask
			}
			name := fmt.Sprintf("rbac-probe-%s-%d", role.GetName(), i)
			without := role.DeepCopy()
			without.SetName(name)
			if err := setPolicyRules(without, slices.Delete(slices.Clone(rules), i, i+1)); err != nil {
				return 0, err
			}
			made = append(made, without)
			// The probe is bound as the ServiceAccount is, to the copy in
			// place of the role.
			for _, b := range objs {
				if b.GetKind() != "ClusterRoleBinding" && b.GetKind() != "RoleBinding" {
					continue
				}
				bound, err := bindingFor(b, sa, p.user, role, name)
				if err != nil {
					return 0, err
				}
				if bound != nil {
					made = append(made, bound)
				}
			}
		}
	}
	// The authorizer reads roles and bindings from its caches, one per
	// kind, each in the order of its writes: a last ClusterRole and
	// binding, and a last Role and binding, seen allowed, mean every probe
	// before them is seen.
	sentinel := "rbac-probe:" + component + ":sentinel"
	last, witness := sentinelObjects(component, sentinel)
	if err := beside.Apply(ctx, c, append(made, last...), false); err != nil {
		return 0, err
	}
	defer func() {
		for _, o := range append(made, last...) {
			_ = c.Delete(context.WithoutCancel(ctx), o.DeepCopy())
		}
	}()
	end := time.Now().Add(30 * time.Second)
	for {
		denied, err := deniedOf(ctx, cs, witness, sentinel)
		if err != nil {
			return 0, err
		}
		if len(denied) == 0 {
			break
		}
		if time.Now().After(end) {
			return 0, fmt.Errorf("the authorizer never saw the probes' roles: %v denied to %s", denied, sentinel)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	var unused []string
	for _, p := range probes {
		needed := false
		if len(p.allowed) > 0 {
			denied, err := deniedOf(ctx, cs, p.allowed, p.user)
			if err != nil {
				return 0, err
			}
			needed = len(denied) > 0
		}
		if !needed {
			unused = append(unused, fmt.Sprintf("%s %s rule %d (%s)", p.role.GetKind(), p.role.GetName(), p.index, ruleString(p.rule)))
		}
	}
	if len(unused) > 0 {
		return len(probes), fmt.Errorf("no request of the run needs %s", strings.Join(unused, ", "))
	}
	return len(probes), nil
}

// deniedOf asks the API server about each of reqs, made by user (see
// review), 16 at a time, and returns those denied.
func deniedOf(ctx context.Context, cs kubernetes.Interface, reqs []request, user string) ([]request, error) {
	verdicts := make([]bool, len(reqs))
	errs := make([]error, len(reqs))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i, r := range reqs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			res, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, r.review(user), metav1.CreateOptions{})
			errs[i] = err
			verdicts[i] = err == nil && res.Status.Allowed
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var denied []request
	for i, r := range reqs {
		if !verdicts[i] {
			denied = append(denied, r)
		}
	}
	return denied, nil
}

// rule is the request as the narrowest rule that allows it.
func (r request) rule() rbacv1.PolicyRule {
	if r.Path != "" {
		return rbacv1.PolicyRule{Verbs: []string{r.Verb}, NonResourceURLs: []string{r.Path}}
	}
	resource := r.Resource
	if r.Subresource != "" {
		resource += "/" + r.Subresource
	}
	rule := rbacv1.PolicyRule{Verbs: []string{r.Verb}, APIGroups: []string{r.APIGroup}, Resources: []string{resource}}
	if r.Name != "" {
		rule.ResourceNames = []string{r.Name}
	}
	return rule
}

func policyRules(role *unstructured.Unstructured) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	raw, _, _ := unstructured.NestedSlice(role.Object, "rules")
	for _, r := range raw {
		var rule rbacv1.PolicyRule
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(r.(map[string]any), &rule); err != nil {
			return nil, fmt.Errorf("%s %s: %w", role.GetKind(), role.GetName(), err)
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

func setPolicyRules(role *unstructured.Unstructured, rules []rbacv1.PolicyRule) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&struct {
		Rules []rbacv1.PolicyRule `json:"rules"`
	}{rules})
	if err != nil {
		return err
	}
	role.Object["rules"] = u["rules"]
	return nil
}

// bindingFor returns binding b as it would bind user in place of the
// ServiceAccount sa, and to the role named without in place of role; nil
// when b does not bind sa.
func bindingFor(b *unstructured.Unstructured, sa, user string, role *unstructured.Unstructured, without string) (*unstructured.Unstructured, error) {
	var rb rbacv1.RoleBinding // a ClusterRoleBinding has the same subjects and roleRef
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(b.Object, &rb); err != nil {
		return nil, fmt.Errorf("%s %s: %w", b.GetKind(), b.GetName(), err)
	}
	if !slices.ContainsFunc(rb.Subjects, func(s rbacv1.Subject) bool {
		return s.Kind == rbacv1.ServiceAccountKind && serviceAccountUser(s.Name) == sa && s.Namespace == beside.NamespaceSystem
	}) {
		return nil, nil
	}
	out := b.DeepCopy()
	out.SetName(strings.ReplaceAll(user, ":", "-") + "-" + b.GetName())
	subjects := []any{map[string]any{"kind": rbacv1.UserKind, "apiGroup": rbacv1.GroupName, "name": user}}
	if err := unstructured.SetNestedSlice(out.Object, subjects, "subjects"); err != nil {
		return nil, err
	}
	if rb.RoleRef.Kind == role.GetKind() && rb.RoleRef.Name == role.GetName() && b.GetNamespace() == role.GetNamespace() {
		if err := unstructured.SetNestedField(out.Object, without, "roleRef", "name"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sentinelObjects are a ClusterRole, a Role and their bindings that allow
// user one request each (witness), applied after the probes.
func sentinelObjects(component, user string) (objs []*unstructured.Unstructured, witness []request) {
	name := "rbac-probe-" + component + "-sentinel"
	subjects := []any{map[string]any{"kind": rbacv1.UserKind, "apiGroup": rbacv1.GroupName, "name": user}}
	for _, kind := range []string{"ClusterRole", "Role"} {
		// Each allows a ConfigMap of its own: the ClusterRole's binding
		// reaches the Role's namespace too.
		allowed := name + "-" + strings.ToLower(kind)
		rule := []any{map[string]any{"verbs": []any{"get"}, "apiGroups": []any{""}, "resources": []any{"configmaps"}, "resourceNames": []any{allowed}}}
		role := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
			"metadata": map[string]any{"name": name}, "rules": rule}}
		binding := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind + "Binding",
			"metadata": map[string]any{"name": name}, "subjects": subjects,
			"roleRef": map[string]any{"apiGroup": rbacv1.GroupName, "kind": kind, "name": name}}}
		ns := beside.NamespaceSystem
		if kind == "Role" {
			ns = beside.NamespaceCluster
			role.SetNamespace(ns)
			binding.SetNamespace(ns)
		}
		witness = append(witness, request{Verb: "get", Resource: "configmaps", Namespace: ns, Name: allowed})
		objs = append(objs, role, binding)
	}
	return objs, witness
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
