// Package karmadaflags reads karmada-controller-manager's command line as
// Karmada v1.18.1 defines it: every flag with its default and validation,
// the feature gates with their defaults and the AllAlpha / AllBeta
// switches, and the --controllers selection with its rules. The reference
// controller manager (examples/karmada/cmd/fleetover-controller-manager)
// and the simulator's -karmada-flags (examples/fleetsim) both read
// Karmada's flags through it, so an operator's command line means the same
// thing to both.
//
// It parses with the standard library's flag package, which accepts the
// forms Karmada's command accepts (--name=value, --name value, -name=value,
// and a bare --name for a boolean), so it adds no dependency. Flags of the
// controllers fleetover does not replace are accepted, so that Karmada's
// own deploy files parse unchanged, and reported by Ignored; flags of the
// other Karmada components are refused by Foreign with the component that
// owns them.
//
// This package is internal to the examples: it is not part of the
// library's API.
package karmadaflags

// Release is the Karmada release whose command line this package reads.
const Release = "v1.18.1"
