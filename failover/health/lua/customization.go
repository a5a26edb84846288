package lua

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/internal/yamlbound"
)

// The Karmada object this file reads, by its wire names. Package lua reads
// it as plain YAML or JSON, so no Karmada module is needed.
const (
	// CustomizationKind is the kind of Karmada's resource interpreter
	// customization object.
	CustomizationKind = "ResourceInterpreterCustomization"
	// CustomizationAPIVersion is the only apiVersion Karmada serves it in.
	CustomizationAPIVersion = "config.karmada.io/v1alpha1"
	// customizationListKind is the typed list kind; `kubectl get -o yaml`
	// prints a v1 List instead.
	customizationListKind = CustomizationKind + "List"
)

// MaxCustomizationFileBytes bounds one file (or one byte slice) that
// ParseCustomizations and LoadCustomizations read: the customizations
// Karmada bundles are a few KiB each.
const MaxCustomizationFileBytes = 8 << 20

// maxListDepth bounds lists of lists; kubectl prints one level.
const maxListDepth = 4

// MaxCustomizationAliasBytes bounds the bytes YAML aliases may add to the
// objects of one file (or byte slice) that ParseCustomizations reads:
// each expansion of an alias is charged the text of the node it names and
// 16 bytes per node. Kubernetes objects need no aliases; the bound lets a
// hand-written file share a few blocks and refuses a small file that
// would expand into a large one.
const MaxCustomizationAliasBytes = 1 << 20

// maxCustomizationErrors bounds the errors one input reports: past it the
// rest of the input is not read, so that a file of many tiny invalid
// documents cannot build an error per document.
const maxCustomizationErrors = 1000

// ErrAliasLimit is wrapped by the *CustomizationError of an input whose
// YAML aliases expand past MaxCustomizationAliasBytes.
var ErrAliasLimit = yamlbound.ErrAliasLimit

// ErrInvalidCustomization is wrapped by every *CustomizationError.
var ErrInvalidCustomization = errors.New("invalid ResourceInterpreterCustomization")

// CustomizationError says which file, document and object is wrong and
// which of its fields (Errs, as a validating webhook reports them). It
// wraps ErrInvalidCustomization and, for a health script that does not
// compile, the *health.CompileError.
type CustomizationError struct {
	// Source is the file the object came from (or the name given to
	// ParseCustomizations); Document counts its YAML documents from 1.
	Source   string
	Document int
	// Name is the object's metadata.name, when it has one.
	Name string
	// Errs are the field errors; paths start at the document's root
	// (items[2].spec.target.kind for an object in a List).
	Errs field.ErrorList
	// Err is an error that is not about one field (a file that cannot be
	// read or decoded, a script that does not compile), or nil.
	Err error
}

func (e *CustomizationError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Document > 0 {
		b.WriteString(": document ")
		b.WriteString(strconv.Itoa(e.Document))
	}
	if e.Name != "" {
		b.WriteString(": " + CustomizationKind + " ")
		b.WriteString(strconv.Quote(e.Name))
	}
	b.WriteString(": ")
	switch {
	case len(e.Errs) > 0 && e.Err != nil:
		b.WriteString(e.Errs.ToAggregate().Error() + ": " + e.Err.Error())
	case len(e.Errs) > 0:
		b.WriteString(e.Errs.ToAggregate().Error())
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap lets errors.Is match ErrInvalidCustomization and the cause.
func (e *CustomizationError) Unwrap() []error {
	errs := []error{ErrInvalidCustomization}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// Customization is the health rule of one ResourceInterpreterCustomization.
type Customization struct {
	// Name is metadata.name. Among customizations of one target, Karmada
	// takes the health script of the first in name order.
	Name string
	// Source and Document locate the object, for errors and reports.
	Source   string
	Document int
	// Path is the object's field path in its document: empty for a plain
	// object, items[i] inside a List.
	Path string
	// Target is spec.target: the exact apiVersion and kind the rule
	// interprets, as Karmada keys it (other versions of the kind are not
	// covered).
	Target schema.GroupVersionKind
	// HealthScript is spec.customizations.healthInterpretation.luaScript.
	HealthScript string
}

// Skipped is an object that was read but yields no health rule, and why.
type Skipped struct {
	Source   string
	Document int
	Path     string
	// Kind and Name identify the object.
	Kind, Name string
	// Reason says why it was skipped: another kind, no health
	// interpretation, or overridden by another customization of the same
	// target (RegisterCustomizations).
	Reason string
}

// String reads "file: document n: Kind "name": reason".
func (s Skipped) String() string {
	where := s.Source
	if s.Document > 0 {
		where += ": document " + strconv.Itoa(s.Document)
	}
	if s.Path != "" {
		where += ": " + s.Path
	}
	return fmt.Sprintf("%s: %s %q: %s", where, s.Kind, s.Name, s.Reason)
}

// Reasons of Skipped.
const (
	SkipOtherKind      = "not a " + CustomizationKind
	SkipNoHealthScript = "no spec.customizations.healthInterpretation"
)

// Customizations is what ParseCustomizations and LoadCustomizations read.
type Customizations struct {
	// Items are the customizations with a health script, in the order
	// read.
	Items []Customization
	// Skipped are the objects without one.
	Skipped []Skipped
}

// ParseCustomizations reads ResourceInterpreterCustomization objects from
// data, named source in errors: one object, several YAML documents, a
// JSON stream, or a List (kind List, as `kubectl get -o yaml` prints, or
// ResourceInterpreterCustomizationList) of them. Empty documents are
// ignored; objects of other kinds and customizations without a
// healthInterpretation are returned in Skipped.
//
// Each object is checked as Karmada's API checks it, by its field names:
// apiVersion config.karmada.io/v1alpha1, a metadata.name, spec.target's
// apiVersion and kind, and a non-empty healthInterpretation.luaScript when
// healthInterpretation is set. Scripts are not compiled here
// (RegisterCustomizations does). Every problem of data is returned, as one
// error per object (*CustomizationError, wrapping
// ErrInvalidCustomization) joined with errors.Join; the objects that are
// valid are returned with it.
//
// The input is bounded: at most MaxCustomizationFileBytes, YAML aliases
// that add at most MaxCustomizationAliasBytes to its objects (past it the
// error names the document and field and wraps ErrAliasLimit, and the rest
// is not read), one YAML parser for all its documents (an empty document
// costs next to nothing), and at most 1,000 errors (past them the rest is
// not read). Scalars are read as Kubernetes reads YAML (sigs.k8s.io/yaml):
// yes/no/on/off are booleans.
func ParseCustomizations(data []byte, source string) (Customizations, error) {
	var out Customizations
	if len(data) > MaxCustomizationFileBytes {
		return out, &CustomizationError{Source: source,
			Err: fmt.Errorf("%d bytes, more than the limit of %d", len(data), MaxCustomizationFileBytes)}
	}
	var errs []error
	opts := yamlbound.Options{MaxAliasBytes: MaxCustomizationAliasBytes, JSON: true}
	yamlbound.Decode(data, opts, func(doc int, obj any, err error) bool {
		if err != nil {
			// A syntax error or the alias bound ends the stream; a value
			// that cannot be converted spoils its document only.
			errs = append(errs, documentError(source, doc, err))
		} else if obj != nil { // nil is an empty document
			out.read(obj, source, doc, nil, 0, &errs)
		}
		if len(errs) >= maxCustomizationErrors {
			errs = append(errs, &CustomizationError{Source: source, Document: doc,
				Err: fmt.Errorf("%w: more than %d errors; the rest of the input is not read", ErrInvalidCustomization, maxCustomizationErrors)})
			return false
		}
		return true
	})
	return out, errors.Join(errs...)
}

// documentError is the *CustomizationError of a document the YAML reader
// refused: a value that has no JSON form, a syntax error, or aliases that
// expand past MaxCustomizationAliasBytes (wrapping ErrAliasLimit), with
// the field where it happened.
func documentError(source string, doc int, err error) *CustomizationError {
	ce := &CustomizationError{Source: source, Document: doc, Err: err}
	var ye *yamlbound.Error
	if errors.As(err, &ye) && ye.Field != "" {
		msg, err := ye.Err.Error(), error(nil)
		if errors.Is(ye.Err, yamlbound.ErrAliasLimit) {
			// The sentinel is Err, printed after the field error.
			msg, err = strings.TrimPrefix(msg, ErrAliasLimit.Error()+": "), ErrAliasLimit
		}
		if ye.Line > 0 {
			msg = fmt.Sprintf("line %d: %s", ye.Line, msg)
		}
		ce.Errs, ce.Err = field.ErrorList{field.Forbidden(field.NewPath(ye.Field), msg)}, err
	}
	return ce
}

// read adds one decoded object (or the items of a list) to c.
func (c *Customizations) read(obj any, source string, doc int, p *field.Path, depth int, errs *[]error) {
	fail := func(name string, fe ...*field.Error) {
		*errs = append(*errs, &CustomizationError{Source: source, Document: doc, Name: name, Errs: fe})
	}
	m, ok := obj.(map[string]any)
	if !ok {
		fail("", field.TypeInvalid(p, shortValue(obj), "must be an object"))
		return
	}
	_, e1 := optionalString(m, "apiVersion", p)
	kind, e2 := optionalString(m, "kind", p)
	if e1 != nil || e2 != nil {
		fail("", nonNil(e1, e2)...)
		return
	}
	if kind == "" {
		fail("", field.Required(p.Child("kind"), "every document must be a Kubernetes object"))
		return
	}
	if kind == "List" || kind == customizationListKind {
		if depth >= maxListDepth {
			fail("", field.Invalid(p.Child("kind"), kind, fmt.Sprintf("lists nested deeper than %d levels", maxListDepth)))
			return
		}
		items, ok := m["items"].([]any)
		if !ok && m["items"] != nil {
			fail("", field.TypeInvalid(p.Child("items"), shortValue(m["items"]), "must be a list"))
			return
		}
		for i, item := range items {
			c.read(item, source, doc, p.Child("items").Index(i), depth+1, errs)
		}
		return
	}
	name, _ := nestedString(m, "metadata", "name")
	if kind != CustomizationKind {
		c.Skipped = append(c.Skipped, Skipped{Source: source, Document: doc, Path: pathString(p), Kind: kind, Name: name, Reason: SkipOtherKind})
		return
	}
	cust, fe := parseCustomization(m, p)
	if len(fe) > 0 {
		fail(name, fe...)
		return
	}
	cust.Source, cust.Document, cust.Path = source, doc, pathString(p)
	if cust.HealthScript == "" {
		c.Skipped = append(c.Skipped, Skipped{Source: source, Document: doc, Path: cust.Path, Kind: kind, Name: cust.Name, Reason: SkipNoHealthScript})
		return
	}
	c.Items = append(c.Items, cust)
}

func nonNil(errs ...*field.Error) field.ErrorList {
	var out field.ErrorList
	for _, e := range errs {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// parseCustomization checks one ResourceInterpreterCustomization.
func parseCustomization(m map[string]any, p *field.Path) (Customization, field.ErrorList) {
	var c Customization
	var errs field.ErrorList
	if apiVersion, _ := m["apiVersion"].(string); apiVersion != CustomizationAPIVersion {
		errs = append(errs, field.NotSupported(p.Child("apiVersion"), apiVersion, []string{CustomizationAPIVersion}))
	}
	metadata, err := optionalMap(m, "metadata", p)
	errs = appendErr(errs, err)
	name, err := optionalString(metadata, "name", p.Child("metadata"))
	errs = appendErr(errs, err)
	if name == "" && err == nil {
		errs = append(errs, field.Required(p.Child("metadata", "name"), "Karmada orders customizations of one target by name"))
	}
	c.Name = name

	specPath := p.Child("spec")
	spec, err := optionalMap(m, "spec", p)
	errs = appendErr(errs, err)
	if spec == nil && err == nil {
		errs = append(errs, field.Required(specPath, ""))
	}
	targetPath := specPath.Child("target")
	target, err := optionalMap(spec, "target", specPath)
	errs = appendErr(errs, err)
	if target == nil && err == nil && spec != nil {
		errs = append(errs, field.Required(targetPath, ""))
	}
	if target != nil {
		apiVersion, err := optionalString(target, "apiVersion", targetPath)
		errs = appendErr(errs, err)
		kind, err2 := optionalString(target, "kind", targetPath)
		errs = appendErr(errs, err2)
		if apiVersion == "" && err == nil {
			errs = append(errs, field.Required(targetPath.Child("apiVersion"), ""))
		}
		if kind == "" && err2 == nil {
			errs = append(errs, field.Required(targetPath.Child("kind"), ""))
		}
		if apiVersion != "" {
			gv, gvErr := schema.ParseGroupVersion(apiVersion)
			switch {
			case gvErr != nil:
				errs = append(errs, field.Invalid(targetPath.Child("apiVersion"), apiVersion, gvErr.Error()))
			case gv.Version == "":
				errs = append(errs, field.Invalid(targetPath.Child("apiVersion"), apiVersion, "must name a version"))
			default:
				c.Target = gv.WithKind(kind)
			}
		}
	}

	custPath := specPath.Child("customizations")
	customizations, err := optionalMap(spec, "customizations", specPath)
	errs = appendErr(errs, err)
	healthPath := custPath.Child("healthInterpretation")
	hi, err := optionalMap(customizations, "healthInterpretation", custPath)
	errs = appendErr(errs, err)
	if _, set := customizations["healthInterpretation"]; set && err == nil {
		script, err := optionalString(hi, "luaScript", healthPath)
		errs = appendErr(errs, err)
		if strings.TrimSpace(script) == "" && err == nil {
			errs = append(errs, field.Required(healthPath.Child("luaScript"), "a healthInterpretation needs a script"))
		}
		c.HealthScript = script
	}
	return c, errs
}

func appendErr(errs field.ErrorList, err *field.Error) field.ErrorList {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

// optionalMap returns m[key] as a map; missing or null is nil, another
// type is an error naming the field.
func optionalMap(m map[string]any, key string, p *field.Path) (map[string]any, *field.Error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	sub, ok := v.(map[string]any)
	if !ok {
		return nil, field.TypeInvalid(p.Child(key), shortValue(v), "must be an object")
	}
	return sub, nil
}

// optionalString returns m[key] as a string; missing or null is "",
// another type is an error naming the field.
func optionalString(m map[string]any, key string, p *field.Path) (string, *field.Error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", field.TypeInvalid(p.Child(key), shortValue(v), "must be a string")
	}
	return s, nil
}

func nestedString(m map[string]any, keys ...string) (string, bool) {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		v = mm[k]
	}
	s, ok := v.(string)
	return s, ok
}

// shortValue keeps error messages short whatever the input holds.
func shortValue(v any) string {
	s := fmt.Sprintf("%v", v)
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}

func pathString(p *field.Path) string {
	if p == nil {
		return ""
	}
	return p.String()
}

// LoadCustomizations reads the customizations of root in fsys: a file, or
// a directory whose files ending in .yaml, .yml or .json are read
// recursively, in lexical order, each as ParseCustomizations reads data.
// Sources are the files' paths in fsys. Only regular files are read (a
// symbolic link counts as what it points to): a FIFO, device or socket is
// an error wrapping ErrNotRegularFile, naming the file, and is never read
// (for os.DirFS on Unix it is not even opened blocking, so a file swapped
// for a FIFO after the check cannot hang the load). Files of a directory named
// testdata, and files and directories whose name starts with "." or "_",
// are left out, as the go tool does. All errors are returned, joined; the
// valid objects are returned with them.
//
// To read from the operating system's file system:
//
//	c, err := lua.LoadCustomizations(os.DirFS(dir), ".")
func LoadCustomizations(fsys fs.FS, root string) (Customizations, error) {
	var out Customizations
	var errs []error
	info, err := fs.Stat(fsys, root)
	if err != nil {
		return out, &CustomizationError{Source: root, Err: err}
	}
	if !info.IsDir() {
		return loadFile(fsys, root)
	}
	var files []string
	err = fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, &CustomizationError{Source: p, Err: err})
			return nil
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != root && name == "testdata" {
				return fs.SkipDir
			}
			return nil
		}
		switch strings.ToLower(path.Ext(name)) {
		case ".yaml", ".yml", ".json":
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		errs = append(errs, &CustomizationError{Source: root, Err: err})
	}
	sort.Strings(files)
	for _, f := range files {
		c, err := loadFile(fsys, f)
		out.Items = append(out.Items, c.Items...)
		out.Skipped = append(out.Skipped, c.Skipped...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// ErrNotRegularFile is wrapped by the *CustomizationError of a file that
// LoadCustomizations does not open or read because it is not a regular
// file: a FIFO (whose open blocks until a writer comes), a device such as
// /dev/zero (endless), a socket, or a symbolic link to one of those.
var ErrNotRegularFile = errors.New("not a regular file")

func loadFile(fsys fs.FS, name string) (Customizations, error) {
	notRegular := func(mode fs.FileMode) (Customizations, error) {
		return Customizations{}, &CustomizationError{Source: name, Err: fmt.Errorf("%w (mode %s)", ErrNotRegularFile, mode.Type())}
	}
	// Stat follows symbolic links, as Open does: a link is judged by what
	// it points to.
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return Customizations{}, &CustomizationError{Source: name, Err: err}
	}
	if !info.Mode().IsRegular() {
		return notRegular(info.Mode())
	}
	// The file may be swapped between Stat and Open: openFile does not
	// block on a FIFO where it can, and the opened file is checked again.
	f, err := openFile(fsys, name)
	if err != nil {
		return Customizations{}, &CustomizationError{Source: name, Err: err}
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil {
		return Customizations{}, &CustomizationError{Source: name, Err: err}
	} else if !info.Mode().IsRegular() {
		return notRegular(info.Mode())
	}
	// One byte more than the limit tells a file at the limit from a longer one.
	data, err := io.ReadAll(io.LimitReader(f, MaxCustomizationFileBytes+1))
	if err != nil {
		return Customizations{}, &CustomizationError{Source: name, Err: err}
	}
	return ParseCustomizations(data, name)
}
