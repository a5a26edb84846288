package health

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrInvalidRegistration is wrapped by Register and RegisterGroupKind when
// the kind is empty or the interpreter is nil.
var ErrInvalidRegistration = errors.New("invalid interpreter registration")

// RegistryConfig configures a Registry. Its zero value is the safe default:
// the built-in interpreters are registered and a kind without an interpreter
// is Unknown.
type RegistryConfig struct {
	// UnregisteredKindsHealthy makes a kind without an interpreter Healthy,
	// as Karmada does. By default such a kind is Unknown: nothing can tell
	// whether it works, and a Healthy answer would let a graceful eviction
	// delete the old copy as soon as the new copy merely exists.
	UnregisteredKindsHealthy bool
	// WithoutBuiltins starts the registry empty instead of with the
	// interpreters of BuiltinInterpreters.
	WithoutBuiltins bool
}

// Registry maps kinds to interpreters. A lookup tries the exact
// GroupVersionKind first and then the GroupKind, so an interpreter
// registered for a GroupKind serves every version of the kind and one
// registered for a GroupVersionKind overrides it for that version. Make one
// with NewRegistry; a zero Registry starts empty and reports unregistered
// kinds Unknown.
//
// A Registry is safe for concurrent use. Lookups never lock: registration
// copies the tables and publishes them atomically, because registration
// happens a handful of times at start-up and lookups happen for every status
// update of every workload.
type Registry struct {
	unregisteredHealthy bool
	mu                  sync.Mutex // serialises writers only
	tables              atomic.Pointer[tables]
}

// tables index interpreters by kind first, because the kind string alone
// almost always decides; the few entries of a kind are then scanned.
// Lookups go through slots, an open-addressed table on a hash of the kind's
// length and three of its bytes, rebuilt whenever the tables are: it costs
// a few comparisons where a Go map hashes the whole string, and the kind
// dispatch runs for every status update of every workload.
type tables struct {
	byKind map[string][]entry
	slots  []kindSlot // len is a power of two, at least twice len(byKind)
}

// kindSlot is one kind's entries in tables.slots; an empty slot has none.
type kindSlot struct {
	kind    string
	entries []entry
}

// kindHash mixes what tells apart the kinds a registry holds, cheaply.
func kindHash(kind string) uint {
	n := len(kind)
	if n == 0 {
		return 0
	}
	return uint(n)*0x9e3779b1 ^ uint(kind[0])*0x85eb ^ uint(kind[n-1])*0xc2b3 ^ uint(kind[n/2])*0x27d5
}

// index rebuilds slots from byKind.
func (t *tables) index() {
	size := 8
	for size < 2*len(t.byKind) {
		size *= 2
	}
	t.slots = make([]kindSlot, size)
	mask := uint(size - 1)
	for kind, entries := range t.byKind {
		if len(entries) == 0 {
			continue
		}
		i := kindHash(kind) & mask
		for t.slots[i].entries != nil {
			i = (i + 1) & mask
		}
		t.slots[i] = kindSlot{kind: kind, entries: entries}
	}
}

// entriesOf returns the entries of kind, nil when none.
func (t *tables) entriesOf(kind string) []entry {
	mask := uint(len(t.slots) - 1)
	for i := kindHash(kind) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.entries == nil || s.kind == kind {
			return s.entries
		}
	}
}

// entry is one registration; an empty version stands for every version.
type entry struct {
	group, version string
	interpreter    Interpreter
}

func (t *tables) set(group, version, kind string, i Interpreter) {
	entries := t.byKind[kind]
	for n := range entries {
		if entries[n].group == group && entries[n].version == version {
			entries[n].interpreter = i
			return
		}
	}
	t.byKind[kind] = append(entries, entry{group: group, version: version, interpreter: i})
}

func (t *tables) lookup(group, version, kind string) (Interpreter, bool) {
	if t == nil { // a zero Registry, not made by NewRegistry
		return nil, false
	}
	var anyVersion Interpreter
	for _, e := range t.entriesOf(kind) {
		if e.group != group {
			continue
		}
		if e.version == version {
			return e.interpreter, true
		}
		if e.version == "" {
			anyVersion = e.interpreter
		}
	}
	return anyVersion, anyVersion != nil
}

// NewRegistry returns a registry configured by cfg.
func NewRegistry(cfg RegistryConfig) *Registry {
	r := &Registry{unregisteredHealthy: cfg.UnregisteredKindsHealthy}
	t := &tables{byKind: map[string][]entry{}}
	if !cfg.WithoutBuiltins {
		for gk, i := range BuiltinInterpreters() {
			t.set(gk.Group, "", gk.Kind, i)
		}
	}
	t.index()
	r.tables.Store(t)
	return r
}

// Register sets the interpreter of one GroupVersionKind, replacing any
// earlier one for that exact version.
func (r *Registry) Register(gvk schema.GroupVersionKind, i Interpreter) error {
	if err := checkRegistration(gvk, i); err != nil {
		return err
	}
	r.update(func(t *tables) { t.set(gvk.Group, gvk.Version, gvk.Kind, i) })
	return nil
}

// RegisterAll sets the interpreters of several GroupVersionKinds, each as
// Register sets one, and publishes them together. Registration copies the
// tables (lookups never lock), so registering n kinds one Register at a
// time copies them n times, quadratic in n; RegisterAll copies them once.
// Nothing is registered when any entry is invalid: the error joins one
// error per invalid entry, in GroupVersionKind order, each wrapping
// ErrInvalidRegistration.
func (r *Registry) RegisterAll(interpreters map[schema.GroupVersionKind]Interpreter) error {
	gvks := make([]schema.GroupVersionKind, 0, len(interpreters))
	for gvk := range interpreters {
		gvks = append(gvks, gvk)
	}
	sort.Slice(gvks, func(i, j int) bool { return gvks[i].String() < gvks[j].String() })
	var errs []error
	for _, gvk := range gvks {
		if err := checkRegistration(gvk, interpreters[gvk]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if len(gvks) == 0 {
		return nil
	}
	r.update(func(t *tables) {
		for _, gvk := range gvks {
			t.set(gvk.Group, gvk.Version, gvk.Kind, interpreters[gvk])
		}
	})
	return nil
}

func checkRegistration(gvk schema.GroupVersionKind, i Interpreter) error {
	if gvk.Kind == "" || gvk.Version == "" {
		return fmt.Errorf("%w: kind %q: version and kind are required", ErrInvalidRegistration, gvk.String())
	}
	if isNilInterpreter(i) {
		return fmt.Errorf("%w: kind %q: interpreter is nil", ErrInvalidRegistration, gvk.String())
	}
	return nil
}

// RegisterGroupKind sets the interpreter of every version of a kind,
// replacing any earlier one for that GroupKind.
func (r *Registry) RegisterGroupKind(gk schema.GroupKind, i Interpreter) error {
	if gk.Kind == "" {
		return fmt.Errorf("%w: kind %q: kind is required", ErrInvalidRegistration, gk.String())
	}
	if isNilInterpreter(i) {
		return fmt.Errorf("%w: kind %q: interpreter is nil", ErrInvalidRegistration, gk.String())
	}
	r.update(func(t *tables) { t.set(gk.Group, "", gk.Kind, i) })
	return nil
}

func isNilInterpreter(i Interpreter) bool {
	if i == nil {
		return true
	}
	f, ok := i.(InterpreterFunc)
	return ok && f == nil
}

// update applies change to a copy of the tables and publishes the copy.
func (r *Registry) update(change func(*tables)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &tables{byKind: map[string][]entry{}}
	if old := r.tables.Load(); old != nil {
		for kind, entries := range old.byKind {
			// A fresh slice: readers of the old tables may be scanning it.
			t.byKind[kind] = append([]entry(nil), entries...)
		}
	}
	change(t)
	t.index()
	r.tables.Store(t)
}

// Lookup returns the interpreter for gvk: the one registered for the exact
// version, else the one registered for its GroupKind.
func (r *Registry) Lookup(gvk schema.GroupVersionKind) (Interpreter, bool) {
	return r.tables.Load().lookup(gvk.Group, gvk.Version, gvk.Kind)
}

// Interpret tells the health of obj with the interpreter of its kind. It
// never fails: a nil object, an interpreter error, an interpreter panic or
// an invalid status is Unknown with the cause as reason; a kind without an
// interpreter is Unknown, or Healthy when the registry was configured so.
func (r *Registry) Interpret(obj *unstructured.Unstructured) (res Result) {
	if obj == nil || obj.Object == nil {
		return Result{Status: Unknown, Reason: ReasonNoObject}
	}
	group, version, kind, ok := objectGVK(obj.Object)
	if !ok {
		return Result{Status: Unknown, Reason: ReasonMalformedAPIVersion}
	}
	i, ok := r.tables.Load().lookup(group, version, kind)
	if !ok {
		if r.unregisteredHealthy {
			return Result{Status: Healthy, Reason: ReasonNoInterpreter}
		}
		return Result{Status: Unknown, Reason: ReasonNoInterpreter}
	}
	defer func() {
		// A custom interpreter is user code; its panic must not take the
		// controller down.
		if p := recover(); p != nil {
			res = Result{Status: Unknown, Reason: fmt.Sprintf("health interpreter panicked: %v", p)}
		}
	}()
	res, err := i.Interpret(obj)
	if err != nil {
		return Result{Status: Unknown, Reason: err.Error()}
	}
	if !res.Status.IsValid() {
		return Result{Status: Unknown, Reason: fmt.Sprintf("health interpreter returned invalid status %q", res.Status)}
	}
	return res
}

// objectGVK reads apiVersion and kind without the allocations of
// unstructured's accessors. ok is false when the version holds a slash
// (an apiVersion of more than two parts).
func objectGVK(obj map[string]any) (group, version, kind string, ok bool) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ = obj["kind"].(string)
	slash := strings.IndexByte(apiVersion, '/')
	if slash < 0 {
		return "", apiVersion, kind, true
	}
	group, version = apiVersion[:slash], apiVersion[slash+1:]
	return group, version, kind, strings.IndexByte(version, '/') < 0
}
