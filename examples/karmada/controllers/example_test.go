package controllers_test

import (
	"fmt"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Each cluster's Works live in its execution namespace, under a name
// derived from the binding.
func ExampleExecutionNamespace() {
	rb := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart-deployment"},
		Spec:       workv1alpha2.ResourceBindingSpec{Resource: workv1alpha2.ObjectReference{Kind: "Deployment"}},
	}
	ns := controllers.ExecutionNamespace("member1")
	cluster, _ := controllers.ClusterOfExecutionNamespace(ns)
	fmt.Println(ns, cluster, controllers.WorkName(rb) != "")
	// Output: karmada-es-member1 member1 true
}
