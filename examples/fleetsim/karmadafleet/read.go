package karmadafleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/internal/yamlbound"
)

// Bounds of the input: an export of a large control plane fits well within
// them, and a runaway input is refused instead of read.
const (
	// MaxBytes bounds the whole input (every file together).
	MaxBytes = 64 << 20
	// MaxFiles bounds the files of a directory.
	MaxFiles = 10_000
	// maxListDepth bounds Lists of Lists.
	maxListDepth = 4
	// MaxAliasBytes bounds the bytes YAML aliases may add to the objects
	// of the whole input (each expansion is charged the text of the node
	// it names and 16 bytes per node): an export has no aliases, and a
	// small file must not expand into a large one.
	MaxAliasBytes = 1 << 20
	// maxErrors bounds the errors reported: past it the rest of the file
	// is not read, so that many tiny invalid documents cannot build an
	// error each.
	maxErrors = 1000
)

// Load reads path, a file or a directory read recursively (files ending in
// .yaml, .yml or .json; hidden files and directories are skipped), and
// describes the fleet its objects make.
func Load(path string) (*Fleet, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var files []string
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			return nil, notRegular(path, st.Mode())
		}
		files = []string{path}
	} else {
		err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if p != path && strings.HasPrefix(name, ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			switch strings.ToLower(filepath.Ext(name)) {
			case ".yaml", ".yml", ".json":
				if len(files) == MaxFiles {
					return fmt.Errorf("%s: more than %d files", path, MaxFiles)
				}
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no .yaml, .yml or .json file in the directory", path)
		}
	}
	sort.Strings(files)
	r := newReader()
	total := 0
	for _, f := range files {
		data, err := readBounded(f, MaxBytes-total)
		if err != nil {
			return nil, err
		}
		total += len(data)
		r.addFile(f, data)
	}
	return r.fleet()
}

// readBounded reads at most limit bytes of file, and fails naming the
// bound when the file holds more.
func readBounded(file string, limit int) ([]byte, error) {
	f, err := openRegular(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		// Swapped since the walk saw a regular file.
		return nil, notRegular(file, st.Mode())
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s: %w: the input is larger than %d bytes", file, ErrInvalidInput, MaxBytes)
	}
	return data, nil
}

// notRegular refuses a FIFO, device or socket: reading one may block for
// ever or never end.
func notRegular(file string, mode fs.FileMode) error {
	return fmt.Errorf("%s: %w: not a regular file (mode %s)", file, ErrInvalidInput, mode.Type())
}

// Parse describes the fleet the objects in data make; file names data in
// errors and findings.
func Parse(file string, data []byte) (*Fleet, error) {
	return parse(file, data, MaxBytes)
}

func parse(file string, data []byte, limit int) (*Fleet, error) {
	if len(data) > limit {
		return nil, fmt.Errorf("%s: %w: the input is larger than %d bytes", file, ErrInvalidInput, limit)
	}
	r := newReader()
	r.addFile(file, data)
	return r.fleet()
}

// source locates an object in the input.
type source struct {
	file string
	doc  int
}

type rawObject struct {
	src source
	obj *unstructured.Unstructured
	raw []byte // the object as JSON
}

type reader struct {
	objects  []rawObject
	errs     InputErrors
	findings []Finding
	// aliasBytes is what YAML aliases added so far, of MaxAliasBytes.
	aliasBytes int64
}

func newReader() *reader { return &reader{} }

func (r *reader) fail(src source, obj Ref, fe *field.Error) {
	r.errs = append(r.errs, &InputError{File: src.file, Document: src.doc, Object: obj, Err: fe})
}

func (r *reader) note(src source, obj Ref, p *field.Path, format string, args ...any) {
	f := Finding{File: src.file, Object: obj, Message: fmt.Sprintf(format, args...)}
	if p != nil {
		f.Field = p.String()
	}
	r.findings = append(r.findings, f)
}

// addFile splits data into YAML (or JSON) documents and collects their
// objects, expanding Lists. Aliases may add at most what is left of
// MaxAliasBytes for the whole input.
func (r *reader) addFile(file string, data []byte) {
	opts := yamlbound.Options{MaxAliasBytes: MaxAliasBytes - r.aliasBytes, Strict: true}
	r.aliasBytes += yamlbound.Decode(data, opts, func(doc int, v any, err error) bool {
		src := source{file: file, doc: doc}
		if err != nil {
			r.fail(src, Ref{}, yamlError(err))
		} else if v != nil { // nil is an empty document
			r.addValue(src, v, nil, 0)
		}
		if len(r.errs) >= maxErrors {
			r.fail(src, Ref{}, field.TooMany(field.NewPath(""), len(r.errs), maxErrors))
			return false
		}
		return true
	})
}

// yamlError is the field error of a document the YAML reader refused: a
// syntax error, a key given twice, a value with no JSON form, or aliases
// that expand past MaxAliasBytes, at the field where it happened.
func yamlError(err error) *field.Error {
	var ye *yamlbound.Error
	if errors.As(err, &ye) && ye.Field != "" {
		msg := ye.Err.Error()
		if ye.Line > 0 {
			msg = fmt.Sprintf("line %d: %s", ye.Line, msg)
		}
		return field.Invalid(field.NewPath(ye.Field), "", "not valid YAML: "+msg)
	}
	return field.Invalid(field.NewPath(""), "", "not valid YAML: "+err.Error())
}

// addValue adds one object, or each item of a List; path locates it inside
// the document (items[3]).
func (r *reader) addValue(src source, v any, path *field.Path, depth int) {
	m, ok := v.(map[string]any)
	if !ok {
		r.fail(src, Ref{}, field.TypeInvalid(orRoot(path), describeType(v), "a Kubernetes object (a mapping with apiVersion, kind and metadata)"))
		return
	}
	if isScenario(m) {
		// A simulator scenario kept beside the export (the faults to
		// replay, say) is not an object of the control plane.
		r.note(src, Ref{Kind: "Scenario", Name: filepath.Base(src.file)}, path, "a fleetsim scenario, not a Karmada object: left out of the fleet (lay it over the fleet with -scenario)")
		return
	}
	obj := &unstructured.Unstructured{Object: m}
	kind := obj.GetKind()
	if items, isList := m["items"]; isList && (kind == "List" || strings.HasSuffix(kind, "List")) {
		l, ok := items.([]any)
		if !ok && items != nil {
			r.fail(src, Ref{Kind: kind}, field.TypeInvalid(orRoot(path).Child("items"), describeType(items), "a list of objects"))
			return
		}
		if depth >= maxListDepth {
			r.fail(src, Ref{Kind: kind}, field.Invalid(orRoot(path), kind, fmt.Sprintf("Lists nested more than %d deep", maxListDepth)))
			return
		}
		for i, it := range l {
			r.addValue(src, it, orRoot(path).Child("items").Index(i), depth+1)
		}
		return
	}
	if err := checkMeta(m); err != nil {
		fe := err
		if path != nil {
			fe.Field = path.String() + "." + fe.Field
		}
		r.fail(src, Ref{Kind: strField(m, "kind"), Name: metaName(m)}, fe)
		return
	}
	raw, err := json.Marshal(m)
	if err != nil {
		r.fail(src, refOf(obj), field.Invalid(orRoot(path), "", err.Error()))
		return
	}
	r.objects = append(r.objects, rawObject{src: src, obj: obj, raw: raw})
}

// isScenario reports whether m is a fleetsim scenario document: no
// apiVersion or kind, and the scenario format's keys.
func isScenario(m map[string]any) bool {
	if _, ok := m["apiVersion"]; ok {
		return false
	}
	if _, ok := m["kind"]; ok {
		return false
	}
	for _, k := range []string{"clusters", "workloads", "faults", "settings"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// checkMeta checks the fields every object needs before it can be named.
func checkMeta(m map[string]any) *field.Error {
	for _, k := range []string{"apiVersion", "kind"} {
		v, ok := m[k]
		if !ok {
			return field.Required(field.NewPath(k), "every object has apiVersion and kind")
		}
		if s, ok := v.(string); !ok || s == "" {
			return field.Invalid(field.NewPath(k), v, "must be a non-empty string")
		}
	}
	md, ok := m["metadata"].(map[string]any)
	if !ok {
		return field.Required(field.NewPath("metadata"), "every object has metadata with a name")
	}
	for _, k := range []string{"name", "namespace"} {
		if v, present := md[k]; present {
			if _, ok := v.(string); !ok {
				return field.TypeInvalid(field.NewPath("metadata", k), v, "must be a string")
			}
		}
	}
	for _, k := range []string{"labels", "annotations"} {
		if v, present := md[k]; present && v != nil {
			mm, ok := v.(map[string]any)
			if !ok {
				return field.TypeInvalid(field.NewPath("metadata", k), describeType(v), "must be a map of strings")
			}
			for kk, vv := range mm {
				if _, ok := vv.(string); !ok {
					return field.TypeInvalid(field.NewPath("metadata", k).Key(kk), vv, "must be a string")
				}
			}
		}
	}
	if metaName(m) == "" {
		return field.Required(field.NewPath("metadata", "name"), "every object has a name")
	}
	return nil
}

func metaName(m map[string]any) string {
	md, _ := m["metadata"].(map[string]any)
	s, _ := md["name"].(string)
	return s
}

func strField(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func orRoot(p *field.Path) *field.Path {
	if p == nil {
		return field.NewPath("")
	}
	return p
}

func describeType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func refOf(obj *unstructured.Unstructured) Ref {
	return Ref{Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
}
