package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// workloadOutcome is what one run did to one workload, read from the
// member clusters at every step (not from what the control plane
// believed).
type workloadOutcome struct {
	Name string
	// Evictions: evictions of the workload that happened.
	Evictions int
	// NoCopy is the longest time the workload had no copy running on a
	// cluster that was up; NoCopyAtEnd: none at the end.
	NoCopy      time.Duration
	NoCopyAtEnd bool
	// Recover is the longest time it was not healthy on every target;
	// Recovered: healthy on every target at the end.
	Recover   time.Duration
	Recovered bool
	// State: "" (no state preserved), "carried", "LOST" or "did not move".
	State string
	// TwoWriters: a single-writer workload ran twice at once.
	TwoWriters bool
}

// sideRun is one side of -compare: a run of the scenario and its outcome
// per workload.
type sideRun struct {
	Rules    string
	Engine   *Engine
	Summary  Summary
	Outcomes []workloadOutcome
}

// runSide runs sc to its end, sampling every workload at every step.
func runSide(sc *Scenario, opts Options) (*sideRun, error) {
	opts.KeepGoing = true
	e, err := NewEngine(sc, opts)
	if err != nil {
		return nil, err
	}
	n := len(e.workloads)
	out := make([]workloadOutcome, n)
	noCopySince := make([]time.Time, n)
	unhealthySince := make([]time.Time, n)
	sample := func() {
		now := e.Now()
		for i, w := range e.workloads {
			if w.deleted {
				continue
			}
			running := false
			for ci, cp := range w.copies {
				if cp != nil && !cp.deleting && e.clusters[ci].alive() {
					running = true
					break
				}
			}
			track(&noCopySince[i], &out[i].NoCopy, !running, now)
			track(&unhealthySince[i], &out[i].Recover, e.notHealthyBecause(w) != "", now)
		}
	}
	sample()
	for e.step < e.steps {
		e.Step()
		sample()
	}
	sum := e.Summarize()
	for i, w := range e.workloads {
		o := &out[i]
		o.Name = w.name()
		o.NoCopyAtEnd, o.Recovered = !noCopySince[i].IsZero(), unhealthySince[i].IsZero()
		for _, ev := range e.tl.Events {
			if ev.Kind == EvEvict && ev.Workload == o.Name && strings.HasPrefix(ev.Detail, detailEvicted) {
				o.Evictions++
			}
		}
		for _, st := range sum.States {
			if st.Workload != o.Name {
				continue
			}
			switch {
			case st.Failovers == 0:
				o.State = "did not move"
			case st.Resumed:
				o.State = "carried"
			default:
				o.State = "LOST"
			}
		}
		o.TwoWriters = slices.ContainsFunc(e.Violations(), func(v Violation) bool {
			return v.Invariant == InvSingleWriter && v.Workload == o.Name
		})
	}
	return &sideRun{Rules: sc.Settings.Rules, Engine: e, Summary: sum, Outcomes: out}, nil
}

// track keeps the longest span a condition held: since is when it began
// (zero while it does not hold), longest the longest span so far.
func track(since *time.Time, longest *time.Duration, holds bool, now time.Time) {
	switch {
	case holds && since.IsZero():
		*since = now
	case holds:
	case !since.IsZero():
		*longest = max(*longest, now.Sub(*since))
		*since = time.Time{}
	}
	if holds {
		*longest = max(*longest, now.Sub(*since))
	}
}

// figures are one side's cells for a workload, in the table's columns.
func (o workloadOutcome) figures() []string {
	recover := "-"
	switch {
	case !o.Recovered:
		recover = "never"
	case o.Recover > 0:
		recover = o.Recover.String()
	}
	noCopy := "-"
	switch {
	case o.NoCopyAtEnd:
		noCopy = o.NoCopy.String() + " (none at the end)"
	case o.NoCopy > 0:
		noCopy = o.NoCopy.String()
	}
	state := orDefault(o.State, "-")
	writers := "no"
	if o.TwoWriters {
		writers = "YES"
	}
	return []string{fmt.Sprint(o.Evictions), recover, noCopy, state, writers}
}

// compareColumns name the figures.
var compareColumns = []string{"evictions", "time to recover", "no copy running", "state", "two writers"}

// renderCompare writes the side-by-side table: per workload one row per
// rules, the workloads whose figures differ marked, then a line per
// difference.
func renderCompare(w io.Writer, karmada, fleetover *sideRun, karmadaFlags string) error {
	var b strings.Builder
	flags := "Karmada's defaults"
	if karmadaFlags != "" {
		flags = karmadaFlags
	}
	fmt.Fprintf(&b, "COMPARE  the same fleet and faults under Karmada's rules (%s) and fleetover's\n", flags)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  workload\trules\t%s\t\n", strings.Join(compareColumns, "\t"))
	var diffs []string
	for i := range karmada.Outcomes {
		k, f := karmada.Outcomes[i], fleetover.Outcomes[i]
		kf, ff := k.figures(), f.figures()
		mark := " "
		if !slices.Equal(kf, ff) {
			mark = "*"
			for c := range kf {
				if kf[c] != ff[c] {
					diffs = append(diffs, fmt.Sprintf("  %s: %s %s under Karmada's rules, %s under fleetover's", k.Name, compareColumns[c], kf[c], ff[c]))
				}
			}
		}
		fmt.Fprintf(tw, "%s %s\tKarmada\t%s\t\n", mark, k.Name, strings.Join(kf, "\t"))
		fmt.Fprintf(tw, "  \tfleetover\t%s\t\n", strings.Join(ff, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(diffs) == 0 {
		b.WriteString("  no difference: both rules handle these faults the same way\n")
	} else {
		fmt.Fprintf(&b, "  %d difference(s) (* above):\n", len(diffs))
		for _, d := range diffs {
			b.WriteString("  " + d + "\n")
		}
	}
	ka, fa := karmada.Summary.Activity, fleetover.Summary.Activity
	fmt.Fprintf(&b, "  activity: %s under Karmada's rules, %s under fleetover's\n",
		plural(ka.Evictions, "eviction"), plural(fa.Evictions, "eviction"))
	_, err := io.WriteString(w, b.String())
	return err
}

// runCompare is -compare: the -fleet export, with the same faults, under
// Karmada's rules (with -karmada-flags) and under fleetover's.
func runCompare(cfg config, stdout, stderr io.Writer) int {
	out := stdout
	if cfg.output == "json" {
		fmt.Fprintln(stderr, "fleetsim: -compare: prints a table for people; it does not combine with -o json")
		return 2
	}
	sides := make([]*sideRun, 2)
	for i, rules := range []string{RulesKarmada, RulesFleetover} {
		sc, fleet, err := loadScenarioOrFleet(cfg, rules, out, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "fleetsim:", err)
			return 2
		}
		if i == 0 {
			fleet.printFindings(out)
			fmt.Fprintln(out)
		}
		for _, l := range describeRules(sc.Settings) {
			fmt.Fprintln(out, l)
		}
		if i == 0 {
			for _, l := range fleet.Karmada.describeFlags() {
				fmt.Fprintln(out, "  "+l)
			}
			for _, n := range fleet.Notes {
				fmt.Fprintln(out, "  "+n)
			}
		}
		if sides[i], err = runSide(sc, Options{Seed: cfg.seed}); err != nil {
			fmt.Fprintln(stderr, "fleetsim:", err)
			return 2
		}
	}
	for _, a := range fleetAssumptions() {
		fmt.Fprintln(out, "  "+a)
	}
	fmt.Fprintln(out)
	if err := renderCompare(out, sides[0], sides[1], cfg.karmadaFlags); err != nil {
		fmt.Fprintln(stderr, "fleetsim:", err)
		return 2
	}
	if !cfg.quiet {
		for _, s := range sides {
			fmt.Fprintln(out)
			fmt.Fprintf(out, "under %s's rules:\n", s.Rules)
			if err := s.Summary.Render(out); err != nil {
				fmt.Fprintln(stderr, "fleetsim:", err)
				return 2
			}
		}
	}
	return violationsCode(sides[1].Engine.sc, sides[1].Summary.Violations)
}
