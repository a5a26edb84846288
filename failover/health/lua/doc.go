// Package lua writes workload health rules as Lua scripts in the form of
// Karmada's resource interpreter (a global InterpretHealth(observedObj)
// function): a script is compiled once by NewInterpreter and registered
// with a health.Registry like any other health.Interpreter.
//
// Karmada's ResourceInterpreterCustomization objects load as they are:
// ParseCustomizations and LoadCustomizations read them (one object, YAML
// documents, a List, a directory) by Karmada's field names, without
// depending on Karmada's modules, and RegisterCustomizations compiles their
// healthInterpretation scripts and registers each for its target kind, with
// Karmada's precedence. require("kube") gives the quantity functions of
// Karmada's kube helper library (KubeModule).
//
// It lives apart from package health so that importing health (or failover)
// does not pull in gopher-lua; only a program that uses Lua rules links it.
//
// Scripts are written by people other than the controller's authors, so
// every evaluation is bounded (Limits): wall time, instructions, call depth,
// the length of any one string and the total bytes of strings built. The
// bounds hold inside library calls too: the string library's pattern
// functions (find, match, gmatch, gsub), rep, format, table.concat and the
// `..` operator are replaced by versions that charge their work and measure
// what they build before building it, since gopher-lua checks its context
// only between instructions and bounds no allocation. A crossed bound stays
// crossed for the rest of the evaluation, so pcall cannot swallow it.
//
// Guarantees:
//   - No script can hang or exhaust the process: an evaluation (and the
//     script's top-level code, run once by NewInterpreter) stops at the
//     first bound crossed, with an error naming the rule and wrapping
//     ErrTimeout, ErrInstructionLimit, ErrMemoryLimit or ErrStringTooLong.
//   - A script reads no file, starts no process and loads no code.
//   - An evaluation never modifies the object; a failure is Unknown.
//   - Interpreters are safe for concurrent use and keep no package-level
//     state.
package lua
