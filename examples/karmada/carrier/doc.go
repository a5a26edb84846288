// Package carrier reads and writes the annotations in which fleetover's
// Karmada integration keeps what Karmada's v1alpha2 API has no field for:
// the failover policy fields Karmada's FailoverBehavior lacks, a binding's
// eviction history, and the trackers' state that must survive a restart.
//
// Each annotation holds one JSON document with a "version" field. A reader
// accepts only the version it knows (SchemaVersion), rejects unknown
// fields and trailing data, and validates the content; every error is a
// field error under metadata.annotations[key], so an event or a log names
// the annotation and the field that is wrong.
//
// It is its own module, with only the library and apimachinery as
// dependencies, so that every program that reads these annotations shares
// one reader whatever Kubernetes release it builds on: the reference
// controllers (examples/karmada, on controller-runtime) and the Karmada
// scheduler plugins (built on the Kubernetes release of the Karmada they
// embed).
package carrier
