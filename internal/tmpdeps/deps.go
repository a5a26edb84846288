//go:build tools

// Package tmpdeps pins the library's dependencies while the packages that
// import them are written; it is removed once they do.
package tmpdeps

import (
	_ "cel.dev/cel-go/cel"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/stretchr/testify/require"
	_ "github.com/yuin/gopher-lua"
	_ "go.yaml.in/yaml/v3"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	_ "k8s.io/apimachinery/pkg/util/validation/field"
	_ "k8s.io/client-go/util/jsonpath"
	_ "k8s.io/component-helpers/scheduling/corev1"
	_ "k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	_ "k8s.io/utils/clock/testing"
	_ "sigs.k8s.io/yaml"
)
