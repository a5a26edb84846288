package eviction

import (
	"encoding/json"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func TestEvictionHistoryRecordDeduplicates(t *testing.T) {
	var h EvictionHistory
	if !h.Record("m1", t0) || !h.Record("m2", t0) {
		t.Fatal("first records reported no change")
	}
	if h.Record("m1", t0) {
		t.Fatal("same record reported a change")
	}
	if !h.Record("m1", t0.Add(time.Minute)) {
		t.Fatal("refresh reported no change")
	}
	if len(h) != 2 || !h[0].CreationTimestamp.Time.Equal(t0.Add(time.Minute)) {
		t.Fatalf("%+v", h)
	}
}

// An eviction that was undone leaves no block behind; the others stay.
func TestEvictionHistoryForget(t *testing.T) {
	var h EvictionHistory
	h.Record("m1", t0)
	h.Record("m2", t0)
	h.Record("m3", t0)
	if !h.Forget("m2", "m9") {
		t.Fatal("forgetting a recorded cluster reported no change")
	}
	if len(h) != 2 || h[0].ClusterName != "m1" || h[1].ClusterName != "m3" {
		t.Fatalf("%+v, want m1 and m3", h)
	}
	if _, blocked, _ := h.BlockedUntil("m2", ptr.To[int32](0), t0); blocked {
		t.Fatal("m2 still blocked after Forget")
	}
	if h.Forget("m2") {
		t.Fatal("forgetting an absent cluster reported a change")
	}
}

func TestEvictionHistoryBlockedUntil(t *testing.T) {
	h := EvictionHistory{{ClusterName: "m1"}}
	h[0].CreationTimestamp.Time = t0

	// nil: the 600 s default.
	until, blocked, forever := h.BlockedUntil("m1", nil, t0.Add(time.Minute))
	if !blocked || forever || !until.Equal(t0.Add(600*time.Second)) {
		t.Fatalf("default: %v %v %v", until, blocked, forever)
	}
	if _, blocked, _ := h.BlockedUntil("m1", nil, t0.Add(600*time.Second)); blocked {
		t.Fatal("still blocked at expiry")
	}
	until, blocked, _ = h.BlockedUntil("m1", ptr.To[int32](30), t0.Add(29*time.Second))
	if !blocked || !until.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("30s: %v %v", until, blocked)
	}
	// 0: forever.
	if _, blocked, forever := h.BlockedUntil("m1", ptr.To[int32](0), t0.Add(1e6*time.Hour)); !blocked || !forever {
		t.Fatal("0 did not block forever")
	}
	// Negative (invalid) falls back to the default rather than unblocking.
	if _, blocked, _ := h.BlockedUntil("m1", ptr.To[int32](-1), t0.Add(time.Minute)); !blocked {
		t.Fatal("negative window unblocked")
	}
	if _, blocked, _ := h.BlockedUntil("m2", ptr.To[int32](0), t0); blocked {
		t.Fatal("unrecorded cluster blocked")
	}
}

func TestEvictionHistoryGC(t *testing.T) {
	h := EvictionHistory{}
	h.Record("a", t0)
	h.Record("b", t0.Add(2*time.Minute))
	h.Record("c", t0.Add(time.Minute))
	window := ptr.To[int32](300)

	removed, next := h.GC(window, t0.Add(5*time.Minute))
	if removed != 1 || len(h) != 2 || !next.Equal(t0.Add(6*time.Minute)) {
		t.Fatalf("removed %d left %+v next %v", removed, h, next)
	}
	if h[0].ClusterName != "b" || h[1].ClusterName != "c" {
		t.Fatalf("order: %+v", h)
	}
	if removed, next := h.GC(ptr.To[int32](0), t0.Add(1e6*time.Hour)); removed != 0 || !next.IsZero() || len(h) != 2 {
		t.Fatal("forever window expired entries")
	}
	if removed, next := h.GC(window, t0.Add(time.Hour)); removed != 2 || !next.IsZero() || len(h) != 0 {
		t.Fatalf("removed %d next %v", removed, next)
	}
}

func TestEvictionHistoryJSONNames(t *testing.T) {
	in := []byte(`[{"clusterName":"m1","creationTimestamp":"2026-03-01T12:00:00Z"}]`)
	var h EvictionHistory
	if err := json.Unmarshal(in, &h); err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 || h[0].ClusterName != "m1" || !h[0].CreationTimestamp.Time.Equal(t0) {
		t.Fatalf("%+v", h)
	}
	out, err := json.Marshal(h)
	if err != nil || string(out) != string(in) {
		t.Fatalf("round trip %s %v", out, err)
	}
}

// The three history rules agree: an entry without a timestamp is rejected by
// validation, blocks for good, and survives GC; a recorded time is stored as
// persisting keeps it, rounded so that no block ends early.
func TestHostileEvictionHistoryEdges(t *testing.T) {
	unstamped := EvictionHistory{{ClusterName: "member1"}}
	errs := ValidateEvictionHistory(unstamped, field.NewPath("history"))
	if len(errs) != 1 || errs[0].Field != "history[0].creationTimestamp" || errs[0].Type != field.ErrorTypeRequired {
		t.Fatalf("validation: %v", errs)
	}
	if _, blocked, forever := unstamped.BlockedUntil("member1", ptr.To[int32](60), t0.Add(1000*time.Hour)); !blocked || !forever {
		t.Fatal("an unstamped entry does not block for good")
	}
	if removed, _ := unstamped.GC(ptr.To[int32](60), t0.Add(1000*time.Hour)); removed != 0 || len(unstamped) != 1 {
		t.Fatalf("GC dropped the forever-blocking entry: removed %d, left %v", removed, unstamped)
	}

	var h EvictionHistory
	at := t0.Add(300 * time.Millisecond)
	if !h.Record("member2", at) {
		t.Fatal("first record reported no change")
	}
	if h.Record("member2", at.Add(100*time.Millisecond)) {
		t.Fatal("recording again within the same second reported a change")
	}
	// Round-trip through JSON, as a restart does.
	raw, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var restored EvictionHistory
	if err := json.Unmarshal(raw, &restored); err != nil {
		t.Fatal(err)
	}
	window := ptr.To[int32](600)
	until, blocked, _ := restored.BlockedUntil("member2", window, at)
	if !blocked || until.Before(at.Add(600*time.Second)) {
		t.Fatalf("restored block ends at %v, before %v", until, at.Add(600*time.Second))
	}
	if u, _, _ := h.BlockedUntil("member2", window, at); !u.Equal(until) {
		t.Fatalf("the block moved through persisting: %v -> %v", u, until)
	}
}
