// Package app is fleetover-controller-manager: the reference controllers as
// one binary with leader election, structured logging, metrics, health and
// profiling endpoints, and karmada-controller-manager v1.18.1's command
// line. Every flag, feature gate and controller name Karmada defines for
// the parts fleetover replaces has Karmada's meaning, default and
// validation; the flags of Karmada's other controllers are accepted and
// logged as having no effect, and the flags of other Karmada components
// are refused, naming the component. docs/karmada.md has the table.
package app
