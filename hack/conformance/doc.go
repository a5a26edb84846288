// Package conformance compares fleetover's decisions with Karmada's own code on generated inputs.
package conformance
