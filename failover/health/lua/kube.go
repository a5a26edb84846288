package lua

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/api/resource"
)

// KubeModule is the module a script gets with require("kube"), the helper
// library of Karmada's Lua VM. It offers the functions that read resource
// quantities:
//
//   - kube.resourceAdd(q1, q2, ...) adds quantity strings ("500m", "1Gi";
//     nil counts as zero) and returns the sum as a canonical quantity
//     string;
//   - kube.getResourceQuantity(q) returns a quantity string as an
//     approximate number (an error for a negative or infinite value).
//
// Karmada's other two functions, accuratePodRequirements and
// getPodDependencies, serve replica and dependency interpretation, not
// health; they exist here so that a script naming them loads, and calling
// them is an error. require of any other module is an error.
const KubeModule = "kube"

// installRequire defines require, which knows the kube module only.
func (lib *boundedLib) installRequire(L *glua.LState) {
	var kube *glua.LTable
	L.SetGlobal("require", L.NewFunction(func(L *glua.LState) int {
		name := L.CheckString(1)
		if name != KubeModule {
			L.RaiseError("module %q not found: health rules can require only %q", name, KubeModule)
		}
		if kube == nil {
			kube = L.SetFuncs(L.NewTable(), map[string]glua.LGFunction{
				"resourceAdd":             lib.resourceAdd,
				"getResourceQuantity":     lib.getResourceQuantity,
				"accuratePodRequirements": notForHealth("accuratePodRequirements"),
				"getPodDependencies":      notForHealth("getPodDependencies"),
			})
		}
		L.Push(kube)
		return 1
	}))
}

func notForHealth(name string) glua.LGFunction {
	return func(L *glua.LState) int {
		L.RaiseError("kube.%s is not offered to health rules", name)
		return 0
	}
}

// quantityArg reads argument n as Karmada's kube library does: nil is
// zero, a string is parsed, anything else is an error.
func (lib *boundedLib) quantityArg(L *glua.LState, fn string, n int) resource.Quantity {
	switch v := L.Get(n).(type) {
	case *glua.LNilType:
		return resource.Quantity{}
	case glua.LString:
		if err := checkQuantitySize(string(v)); err != nil {
			L.RaiseError("kube.%s: argument %d: %v", fn, n, err)
		}
		lib.step(L, 16+4*len(v))
		q, err := resource.ParseQuantity(string(v))
		if err != nil {
			L.RaiseError("kube.%s: argument %d: %v", fn, n, err)
		}
		return q
	default:
		L.RaiseError("kube.%s: argument %d: string expected, got %s", fn, n, v.Type().String())
		return resource.Quantity{}
	}
}

func (lib *boundedLib) resourceAdd(L *glua.LState) int {
	var sum resource.Quantity
	for i := 1; i <= L.GetTop(); i++ {
		q := lib.quantityArg(L, "resourceAdd", i)
		sum.Add(q)
	}
	s := sum.String()
	if !lib.budget.alloc(int64(len(s))) {
		lib.fail(L)
	}
	L.Push(glua.LString(s))
	return 1
}

func (lib *boundedLib) getResourceQuantity(L *glua.LState) int {
	if L.GetTop() != 1 {
		L.RaiseError("kube.getResourceQuantity takes one argument, got %d", L.GetTop())
	}
	q := lib.quantityArg(L, "getResourceQuantity", 1)
	f := q.AsApproximateFloat64()
	if f < 0 || math.IsInf(f, 1) {
		L.RaiseError("kube.getResourceQuantity: %s is negative or too large", q.String())
	}
	L.Push(glua.LNumber(f))
	return 1
}

// apimachinery's quantity parser computes with the exact decimal, so its
// time grows with the exponent and the length: "1e-999999999" did not
// finish in ten minutes, and no instruction count interrupts one call.
// Quantities in Kubernetes objects are a few bytes with exponents within
// ±18; these bounds keep one call under a millisecond.
const (
	maxQuantityBytes    = 256
	maxQuantityExponent = 400
)

// checkQuantitySize refuses a quantity too long or with too large an
// exponent to parse quickly; ParseQuantity judges everything else.
func checkQuantitySize(s string) error {
	if len(s) > maxQuantityBytes {
		return fmt.Errorf("quantity of %d bytes, more than %d", len(s), maxQuantityBytes)
	}
	// An exponent is e or E followed by a signed integer; "Ei" and "E"
	// alone are suffixes.
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return nil
	}
	exp := strings.TrimLeft(s[i+1:], "+-")
	if exp == "" || exp == "i" {
		return nil
	}
	if n, err := strconv.Atoi(exp); err == nil && (n > maxQuantityExponent || n < -maxQuantityExponent) || len(exp) > 6 {
		return fmt.Errorf("quantity %q has an exponent beyond ±%d", s, maxQuantityExponent)
	}
	return nil
}
