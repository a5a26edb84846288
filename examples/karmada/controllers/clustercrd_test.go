package controllers_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
)

// clusterCRD is the committed stand-in for the Cluster API
// (hack/update-codegen.sh generates it).
var clusterCRD = filepath.Join("testdata", "crd", "cluster.karmada.io_clusters.yaml")

// TestClusterCRDKnowsEveryField keeps the stand-in Cluster CRD in step with
// the karmada-io/api release go.mod requires: every JSON field of Cluster's
// spec and status, at every depth, is a property of the CRD's schema, and
// every property is a field. The API server prunes a field its schema does
// not name, so a stale CRD would drop what a newer Cluster type writes.
// After a change of karmada-io/api, run hack/update-codegen.sh.
func TestClusterCRDKnowsEveryField(t *testing.T) {
	raw, err := os.ReadFile(clusterCRD)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		t.Fatalf("%s: %v", clusterCRD, err)
	}
	var schema *apiextensionsv1.JSONSchemaProps
	for _, v := range crd.Spec.Versions {
		if v.Name == clusterv1alpha1.SchemeGroupVersion.Version && v.Schema != nil {
			schema = v.Schema.OpenAPIV3Schema
		}
	}
	if schema == nil {
		t.Fatalf("%s: no schema for version %s", clusterCRD, clusterv1alpha1.SchemeGroupVersion.Version)
	}
	for _, part := range []struct {
		field string
		typ   reflect.Type
	}{
		{"spec", reflect.TypeFor[clusterv1alpha1.ClusterSpec]()},
		{"status", reflect.TypeFor[clusterv1alpha1.ClusterStatus]()},
	} {
		prop, ok := schema.Properties[part.field]
		if !ok {
			t.Errorf("%s: no property %s", clusterCRD, part.field)
			continue
		}
		for _, d := range schemaDifferences(part.field, part.typ, &prop) {
			t.Errorf("%s: %s; run hack/update-codegen.sh", clusterCRD, d)
		}
	}
}

// TestSchemaDifferencesFindsMissingAndExtraFields proves the comparison
// TestClusterCRDKnowsEveryField relies on sees both kinds of drift, nested.
func TestSchemaDifferencesFindsMissingAndExtraFields(t *testing.T) {
	type inline struct {
		Inlined string `json:"inlined"`
	}
	type inner struct {
		Kept    string `json:"kept"`
		Missing string `json:"missing,omitempty"`
	}
	type Name string
	type outer struct {
		inline
		Name
		Items []inner `json:"items"`
		Skip  string  `json:"-"`
	}
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	schema := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"inlined": str,
		"Name":    str,
		"items": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
			Type:       "object",
			Properties: map[string]apiextensionsv1.JSONSchemaProps{"kept": str, "extra": str},
		}}},
	}}
	got := schemaDifferences("spec", reflect.TypeFor[outer](), &schema)
	want := []string{
		"spec.items[].extra is in the CRD, not in the Go type",
		"spec.items[].missing is in the Go type, not in the CRD",
	}
	if !slices.Equal(got, want) {
		t.Errorf("schemaDifferences = %q, want %q", got, want)
	}
}

// schemaDifferences compares the JSON fields of typ with schema's
// properties, recursively, and describes each field only one of them has,
// sorted. A type with its own JSON encoding (metav1.Time,
// resource.Quantity) is a leaf: its schema is a scalar.
func schemaDifferences(path string, typ reflect.Type, schema *apiextensionsv1.JSONSchemaProps) []string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Implements(jsonMarshaler) || reflect.PointerTo(typ).Implements(jsonMarshaler) {
		return nil
	}
	var diffs []string
	switch typ.Kind() {
	case reflect.Slice, reflect.Array:
		if typ.Elem().Kind() == reflect.Uint8 || schema.Items == nil || schema.Items.Schema == nil {
			return nil
		}
		return schemaDifferences(path+"[]", typ.Elem(), schema.Items.Schema)
	case reflect.Map:
		if schema.AdditionalProperties == nil || schema.AdditionalProperties.Schema == nil {
			return nil
		}
		return schemaDifferences(path+"{}", typ.Elem(), schema.AdditionalProperties.Schema)
	case reflect.Struct:
		fields := jsonFields(typ)
		for name, ft := range fields {
			prop, ok := schema.Properties[name]
			if !ok {
				diffs = append(diffs, path+"."+name+" is in the Go type, not in the CRD")
				continue
			}
			diffs = append(diffs, schemaDifferences(path+"."+name, ft, &prop)...)
		}
		for name := range schema.Properties {
			if _, ok := fields[name]; !ok {
				diffs = append(diffs, path+"."+name+" is in the CRD, not in the Go type")
			}
		}
	}
	slices.Sort(diffs)
	return diffs
}

var jsonMarshaler = reflect.TypeFor[json.Marshaler]()

// jsonFields returns the fields of struct type typ by JSON name, with
// those of embedded structs without a name of their own (encoding/json's
// inlining; an embedded field of another kind is a field like any other).
func jsonFields(typ reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		embedded := f.Type
		for embedded.Kind() == reflect.Pointer {
			embedded = embedded.Elem()
		}
		if name == "" && f.Anonymous && embedded.Kind() == reflect.Struct {
			for n, t := range jsonFields(embedded) {
				fields[n] = t
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}
