package carrier

import (
	"github.com/fleetover/fleetover/eviction"
)

// EvictionHistoryDocument is the document under EvictionHistoryKey.
type EvictionHistoryDocument struct {
	Version string                   `json:"version"`
	Entries eviction.EvictionHistory `json:"entries"`
}

// DecodeEvictionHistory reads EvictionHistoryKey from annotations and
// validates it (eviction.ValidateEvictionHistory). An absent annotation is
// an empty history.
func DecodeEvictionHistory(annotations map[string]string) (eviction.EvictionHistory, error) {
	doc := &EvictionHistoryDocument{}
	found, errs := Decode(annotations, EvictionHistoryKey, doc, func() string { return doc.Version })
	if !found {
		return nil, nil
	}
	if len(errs) == 0 {
		errs = eviction.ValidateEvictionHistory(doc.Entries, Path(EvictionHistoryKey).Child("entries"))
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return doc.Entries, nil
}
