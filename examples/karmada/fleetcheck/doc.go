// Package fleetcheck checks, against Karmada's own Go types
// (github.com/karmada-io/api), the field names by which
// examples/fleetsim/karmadafleet reads a Karmada export without importing
// them: typed objects filled with random values are marshalled as the API
// server would serve them, read back by the reader, and every field it
// models must come through equal; the export under
// examples/fleetsim/testdata must decode strictly into the typed objects.
// The package holds tests only.
package fleetcheck
