package why

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Step names a decision on the way from a cluster to a dispatch.
type Step string

// The steps, in the order a chain visits them.
const (
	StepPolicy            Step = "Policy"
	StepClusterHealth     Step = "ClusterHealth"
	StepTaints            Step = "Taints"
	StepToleration        Step = "Toleration"
	StepPacing            Step = "Pacing"
	StepApplicationHealth Step = "ApplicationHealth"
	StepEviction          Step = "Eviction"
	StepPlacement         Step = "Placement"
	StepFilter            Step = "Filter"
	StepDispatch          Step = "Dispatch"
	StepState             Step = "State"
	StepGracefulEviction  Step = "GracefulEviction"
	StepWorkload          Step = "Workload"
)

// Explanation is what one decision says about itself.
type Explanation struct {
	Step   Step
	Reason Reason
	// Cluster is the member cluster the step is about; empty when it is
	// about the workload as a whole.
	Cluster string
	// Message is one sentence for people.
	Message string
	// Since is when the state the step reports began; zero when unknown.
	Since time.Time
	// Until is when the step ends by itself; zero when time alone will not
	// end it.
	Until time.Time
	// Holds reports that this step keeps the workload where it is.
	Holds bool
	// Warning reports a hold that needs a person: waiting will not end it.
	Warning bool
}

// String renders the explanation on one line, times in RFC 3339.
func (e Explanation) String() string { return e.Format(rfc3339) }

// Format renders the explanation on one line, with at writing its time
// (Until): a caller that explains on one clock writes every time the same
// way, relative to its start, say.
func (e Explanation) Format(at func(time.Time) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-17s %-32s %s", e.Step, e.Reason, e.Message)
	if !e.Until.IsZero() {
		fmt.Fprintf(&b, " (until %s)", at(e.Until))
	}
	return b.String()
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Chain is the answer to "why is this workload where it is": the steps in
// order, and the one that holds it.
type Chain struct {
	Steps []Explanation
	// Holding is the index in Steps of the first step that holds the
	// workload; -1 when nothing does.
	Holding int
	// NextChange is when the chain changes by itself (a toleration ends, a
	// countdown or a grace period runs out, the pacer refills); zero when
	// only a change of the inputs will change it.
	NextChange time.Time
}

// Held returns the step that holds the workload, and false when none does.
func (c Chain) Held() (Explanation, bool) {
	if c.Holding < 0 || c.Holding >= len(c.Steps) {
		return Explanation{}, false
	}
	return c.Steps[c.Holding], true
}

// Render writes the chain one step per line, the holding step marked with
// "=>" (or "!!" when it needs a person), then when it changes by itself;
// times in RFC 3339.
func (c Chain) Render(w io.Writer) error { return c.RenderWith(w, rfc3339) }

// RenderWith is Render with at writing every time.
func (c Chain) RenderWith(w io.Writer, at func(time.Time) string) error {
	for i, s := range c.Steps {
		mark := "  "
		if i == c.Holding {
			mark = "=>"
			if s.Warning {
				mark = "!!"
			}
		}
		if _, err := fmt.Fprintf(w, "%s %s\n", mark, s.Format(at)); err != nil {
			return err
		}
	}
	if !c.NextChange.IsZero() {
		_, err := fmt.Fprintf(w, "   next change by itself at %s\n", at(c.NextChange))
		return err
	}
	return nil
}

// add appends s and, when it holds and nothing held before, makes it the
// holding step.
func (c *Chain) add(s Explanation) {
	c.Steps = append(c.Steps, s)
	if s.Holds && c.Holding < 0 {
		c.Holding = len(c.Steps) - 1
		c.NextChange = s.Until
	}
}
