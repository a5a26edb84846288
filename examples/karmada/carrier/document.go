package carrier

import (
	"bytes"
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SchemaVersion is the version of every annotation document this package
// reads and writes.
const SchemaVersion = "v1alpha1"

// Path is the field path of annotation key, the root of every error about
// it.
func Path(key string) *field.Path {
	return field.NewPath("metadata", "annotations").Key(key)
}

// Decode decodes annotation key of annotations into out, strictly (unknown
// fields and trailing data are errors), and checks that version, read from
// out once decoded, is SchemaVersion. found is false when the annotation is
// absent; errs then is empty.
func Decode(annotations map[string]string, key string, out any, version func() string) (found bool, errs field.ErrorList) {
	raw, ok := annotations[key]
	if !ok {
		return false, nil
	}
	path := Path(key)
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return true, field.ErrorList{field.Invalid(path, raw, err.Error())}
	}
	if dec.More() {
		return true, field.ErrorList{field.Invalid(path, raw, "trailing data after the JSON document")}
	}
	if v := version(); v != SchemaVersion {
		return true, field.ErrorList{field.NotSupported(path.Child("version"), v, []string{SchemaVersion})}
	}
	return true, nil
}

// Encode returns doc as an annotation value.
func Encode(doc any) (string, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	return string(raw), nil
}
