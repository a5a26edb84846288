// Package app is fleetover-controller-manager: the reference controllers as
// one binary with leader election, structured logging, metrics and health
// endpoints, and flags and feature gates named like
// karmada-controller-manager v1.17.1's where they mean the same thing, with
// Karmada's defaults.
package app
