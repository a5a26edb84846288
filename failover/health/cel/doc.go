// Package cel writes workload health rules as CEL expressions: a rule is
// compiled once by NewInterpreter and registered with a health.Registry
// like any other health.Interpreter.
//
// It lives apart from package health so that importing health (or failover)
// does not pull in cel-go and its parser's dependencies; only a program that
// uses CEL rules links them.
//
// Guarantees:
//   - An expression is compiled once; a syntax or type error is a
//     *health.CompileError quoting it.
//   - Each evaluation is bounded by Config.CostLimit. CEL charges string
//     concatenation, list building and comprehensions by size, so the cost
//     limit bounds allocation too; the expression's own length is bounded
//     by Config.MaxExpressionBytes.
//   - An evaluation never panics and never modifies the object; a failure is
//     Unknown with an error naming the rule.
//   - Interpreters are safe for concurrent use and keep no package-level
//     state.
package cel
