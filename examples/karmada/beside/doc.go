// Package beside runs Karmada's own control plane inside a Go test, with
// no containers: envtest's kube-apiserver and etcd as karmada-apiserver,
// Karmada's CRDs from its Go module, karmada-aggregated-apiserver serving
// the real Cluster API behind an APIService, and karmada-controller-manager
// and karmada-scheduler as processes, all built from Karmada's Go module at
// an exact version (hack/kube-assets.sh). Member clusters are further
// kube-apiserver and etcd pairs joined in Push mode, as karmadactl join
// writes them; no kubelet runs there, so a member stand-in writes the
// workloads' status as a test tells it.
//
// A ControlPlane runs in one of two configurations: Karmada alone
// (KarmadaAlone, as Karmada's own e2e deploys it) or fleetover beside
// Karmada (FleetoverBeside: Karmada's taint manager, gracefulEviction,
// applicationFailover and clustertaintpolicy controllers off, and
// fleetover-controller-manager in their place), so the same scenario runs
// in both and the outcomes can be compared.
package beside
