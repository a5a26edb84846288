package eviction

import "fmt"

// PurgeMode says what happens to the copy of a workload on the cluster it is
// leaving.
type PurgeMode string

const (
	// PurgeDirectly deletes the old copy first; the new copy is dispatched only
	// once the old one is gone. Stateful workloads that must never run twice use it.
	PurgeDirectly PurgeMode = "Directly"
	// PurgeGracefully keeps the old copy until the new one is healthy or the
	// grace period ends, whichever comes first.
	PurgeGracefully PurgeMode = "Gracefully"
	// PurgeNever keeps the old copy until a person removes the eviction task.
	PurgeNever PurgeMode = "Never"

	// LegacyPurgeImmediately is the older spelling of PurgeDirectly.
	LegacyPurgeImmediately PurgeMode = "Immediately"
	// LegacyPurgeGraciously is the older spelling of PurgeGracefully.
	LegacyPurgeGraciously PurgeMode = "Graciously"
)

// ErrUnknownPurgeMode is wrapped by ParsePurgeMode for a value that is no
// purge mode, current or legacy.
var ErrUnknownPurgeMode = fmt.Errorf("unknown purge mode")

// Normalize maps the legacy spellings to their current names and returns every
// other value unchanged (including the empty and unknown ones, which
// validation reports).
func (m PurgeMode) Normalize() PurgeMode {
	switch m {
	case LegacyPurgeImmediately:
		return PurgeDirectly
	case LegacyPurgeGraciously:
		return PurgeGracefully
	default:
		return m
	}
}

// IsValid reports whether m, after normalisation, is Directly, Gracefully or
// Never.
func (m PurgeMode) IsValid() bool {
	switch m.Normalize() {
	case PurgeDirectly, PurgeGracefully, PurgeNever:
		return true
	default:
		return false
	}
}

// IsGraceful reports whether the old copy is kept while the new one starts,
// which is when a grace period means something.
func (m PurgeMode) IsGraceful() bool { return m.Normalize() == PurgeGracefully }

// ParsePurgeMode accepts the current and the legacy names and returns the
// current one.
func ParsePurgeMode(s string) (PurgeMode, error) {
	m := PurgeMode(s).Normalize()
	if !m.IsValid() {
		return "", fmt.Errorf("%w %q: want Directly, Gracefully or Never (or the legacy Immediately, Graciously)", ErrUnknownPurgeMode, s)
	}
	return m, nil
}
