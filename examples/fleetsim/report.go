package main

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// writeReport writes report.md and timeline.svg into dir.
func writeReport(dir string, e *Engine, sum Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	svg := renderSVG(e)
	if err := os.WriteFile(filepath.Join(dir, "timeline.svg"), svg, 0o644); err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# fleetsim report: %s\n\n", e.sc.Name)
	if e.sc.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", e.sc.Description)
	}
	fmt.Fprintf(&b, "Seed %d, %d clusters, %d workloads, %d faults, %s of fleet time in %s steps.\n\n",
		sum.Seed, sum.Clusters, sum.Workloads, sum.Faults, sum.SimTime, sum.Step)
	b.WriteString("![timeline](timeline.svg)\n\n## Summary\n\n```\n")
	if err := sum.Render(&b); err != nil {
		return err
	}
	b.WriteString("```\n\n## Timeline\n\n| sim time | event | subject | detail |\n|---|---|---|---|\n")
	for _, ev := range e.tl.Events {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", formatSimTime(ev.At), ev.Kind, subject(ev), strings.ReplaceAll(ev.Detail, "|", "\\|"))
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), b.Bytes(), 0o644)
}

// segment is a stretch of a lane in one state.
type segment struct {
	from, to time.Duration
	state    string
}

// taintSpans lists, per cluster, each taint's spans (state is
// key:effect), from the scenario's taints at the start and the timeline's
// taint and untaint rows; a taint still there at the end runs to total.
func taintSpans(e *Engine, total time.Duration) map[string][]segment {
	out := map[string][]segment{}
	open := map[string]map[string]int{} // cluster -> taint -> index in out
	start := func(cluster, taint string, at time.Duration) {
		if open[cluster] == nil {
			open[cluster] = map[string]int{}
		}
		if _, ok := open[cluster][taint]; ok {
			return
		}
		open[cluster][taint] = len(out[cluster])
		out[cluster] = append(out[cluster], segment{at, total, taint})
	}
	for _, c := range e.sc.Clusters {
		for _, t := range c.Taints {
			start(c.Name, t.Key+":"+t.Effect, 0)
		}
	}
	for _, ev := range e.tl.Events {
		switch ev.Kind {
		case EvTaint:
			start(ev.Cluster, strings.TrimPrefix(ev.Detail, "+taint "), ev.At)
		case EvUntaint:
			taint := strings.TrimPrefix(ev.Detail, "-taint ")
			if i, ok := open[ev.Cluster][taint]; ok {
				out[ev.Cluster][i].to = ev.At
				delete(open[ev.Cluster], taint)
			}
		}
	}
	return out
}

// effectSegment is a stretch of time with the strongest taint effect in it.
type effectSegment struct {
	from, to time.Duration
	effect   string
}

// strongestTaint cuts the time the spans cover into stretches of one
// strongest effect (NoExecute over NoSchedule over PreferNoSchedule).
func strongestTaint(spans []segment, total time.Duration) []effectSegment {
	rank := map[string]int{"PreferNoSchedule": 1, "NoSchedule": 2, "NoExecute": 3}
	var cuts []time.Duration
	for _, s := range spans {
		cuts = append(cuts, s.from, s.to)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []effectSegment
	for i := 0; i+1 < len(cuts); i++ {
		from, to := cuts[i], cuts[i+1]
		best := ""
		for _, s := range spans {
			eff := s.state[strings.LastIndex(s.state, ":")+1:]
			if s.from <= from && to <= s.to && rank[eff] > rank[best] {
				best = eff
			}
		}
		if best == "" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].effect == best && out[n-1].to == from {
			out[n-1].to = to
			continue
		}
		out = append(out, effectSegment{from, to, best})
	}
	return out
}

// svgColour is the fill of a Ready state or a taint effect.
func svgColour(state string) string {
	switch state {
	case "True":
		return "#4caf50"
	case "False":
		return "#e53935"
	case "NoSchedule":
		return "#fbc02d"
	case "NoExecute":
		return "#ef6c00"
	}
	return "#9e9e9e" // Unknown
}

// maxSVGLanes is the most clusters (or workloads) drawn one lane each;
// a larger fleet gets one lane per zone (and one for all workloads) that
// shows how many are affected over time.
const maxSVGLanes = 40

// renderSVG draws one lane per cluster (Ready state, taints, evictions from
// it) and one per workload (its placement over time), or aggregated lanes
// for a fleet larger than maxSVGLanes.
func renderSVG(e *Engine) []byte {
	const (
		left   = 150
		width  = 900
		laneH  = 26
		top    = 40
		fontSz = 11
	)
	total := e.Elapsed()
	if total <= 0 {
		total = e.sc.Duration.D()
	}
	x := func(d time.Duration) float64 { return left + float64(width)*float64(d)/float64(total) }
	clusterSegs := map[string][]segment{}
	clusterTaints := taintSpans(e, total)
	for _, c := range e.clusters {
		clusterSegs[c.name] = []segment{{0, total, "True"}}
	}
	for _, ev := range e.tl.Events {
		if ev.Kind == EvReady {
			segs := clusterSegs[ev.Cluster]
			segs[len(segs)-1].to = ev.At
			to := "True"
			if i := strings.Index(ev.Detail, "-> "); i >= 0 {
				to = strings.Fields(ev.Detail[i+3:])[0]
			}
			clusterSegs[ev.Cluster] = append(segs, segment{ev.At, total, to})
		}
	}
	zones := zoneLanes(e)
	clusterLanes, workloadLanes := len(e.clusters), len(e.workloads)
	if clusterLanes > maxSVGLanes {
		clusterLanes = len(zones)
	}
	if workloadLanes > maxSVGLanes {
		workloadLanes = 1
	}
	lanes := clusterLanes + workloadLanes
	height := top + lanes*laneH + 60
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="%d">`+"\n",
		left+width+40, height, left+width+40, height, fontSz)
	fmt.Fprintf(&b, `<title>fleetsim timeline: %s</title>`+"\n", html.EscapeString(e.sc.Name))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", left+width+40, height)
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14" font-weight="bold">%s: seed %d, %s</text>`+"\n",
		html.EscapeString(e.sc.Name), e.seed, total)
	// Hour / ten-minute grid.
	tick := time.Minute
	for _, t := range []time.Duration{time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour,
		2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour} {
		tick = t
		if total/t <= 12 {
			break
		}
	}
	for t := time.Duration(0); t <= total; t += tick {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e0e0e0"/>`+"\n", x(t), top-6, x(t), top+lanes*laneH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#616161">%s</text>`+"\n", x(t), top+lanes*laneH+14, formatSimTime(t))
	}
	// Fault markers.
	for _, ev := range e.tl.Events {
		if ev.Kind == EvFault || ev.Kind == EvRestart || ev.Kind == EvViolation {
			colour := "#3949ab"
			if ev.Kind == EvViolation {
				colour = "#d50000"
			}
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="3,3"><title>%s %s</title></line>`+"\n",
				x(ev.At), top-6, x(ev.At), top+lanes*laneH, colour, formatSimTime(ev.At), html.EscapeString(ev.Detail))
		}
	}
	if len(e.clusters) > maxSVGLanes {
		drawZoneLanes(&b, e, zones, total, x, top, laneH)
	}
	for i, c := range e.clusters {
		if len(e.clusters) > maxSVGLanes {
			break
		}
		y := top + i*laneH
		fmt.Fprintf(&b, `<text x="10" y="%d">%s (%s)</text>`+"\n", y+15, html.EscapeString(c.name), html.EscapeString(c.zone))
		for _, s := range clusterSegs[c.name] {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>Ready=%s %s..%s</title></rect>`+"\n",
				x(s.from), y+2, max(0.5, x(s.to)-x(s.from)), laneH-12, svgColour(s.state), s.state, formatSimTime(s.from), formatSimTime(s.to))
		}
		// The bar shows the strongest effect at each moment; its hover
		// names every taint present, each with its own whole span.
		for _, s := range strongestTaint(clusterTaints[c.name], total) {
			var titles []string
			for _, t := range clusterTaints[c.name] {
				if t.from < s.to && s.from < t.to {
					titles = append(titles, fmt.Sprintf("taint %s %s..%s", t.state, formatSimTime(t.from), formatSimTime(t.to)))
				}
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="6" fill="%s"><title>%s</title></rect>`+"\n",
				x(s.from), y+laneH-10, max(0.5, x(s.to)-x(s.from)), svgColour(s.effect), html.EscapeString(strings.Join(titles, "; ")))
		}
		for _, ev := range e.tl.Events {
			if ev.Kind == EvEvict && ev.Cluster == c.name && strings.HasPrefix(ev.Detail, "evicted") {
				px := x(ev.At)
				fmt.Fprintf(&b, `<path d="M %.1f %d l -4 -7 h 8 z" fill="#000000"><title>%s evicted %s: %s</title></path>`+"\n",
					px, y+2, formatSimTime(ev.At), html.EscapeString(ev.Workload), html.EscapeString(ev.Detail))
			}
		}
	}
	if len(e.workloads) > maxSVGLanes {
		drawWorkloadsLane(&b, e, total, x, top+clusterLanes*laneH, laneH)
	}
	palette := []string{"#bbdefb", "#c8e6c9", "#ffe0b2", "#e1bee7", "#b2dfdb", "#f8bbd0"}
	for i, w := range e.workloads {
		if len(e.workloads) > maxSVGLanes {
			break
		}
		y := top + (clusterLanes+i)*laneH
		fmt.Fprintf(&b, `<text x="10" y="%d">%s</text>`+"\n", y+15, html.EscapeString(w.name()))
		var segs []segment
		for _, ev := range e.tl.Events {
			if ev.Kind == EvPlace && ev.Workload == w.name() {
				if n := len(segs); n > 0 {
					segs[n-1].to = ev.At
				}
				segs = append(segs, segment{ev.At, total, strings.TrimPrefix(ev.Detail, "placement ")})
			}
			if ev.Kind == EvFault && ev.Workload == w.name() && strings.HasPrefix(ev.Detail, FaultDelete) {
				if n := len(segs); n > 0 {
					segs[n-1].to = ev.At
				}
			}
		}
		for k, s := range segs {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="#757575" stroke-width="0.5"><title>%s %s..%s</title></rect>`+"\n",
				x(s.from), y+2, max(0.5, x(s.to)-x(s.from)), laneH-6, palette[k%len(palette)], html.EscapeString(s.state), formatSimTime(s.from), formatSimTime(s.to))
			if x(s.to)-x(s.from) > float64(7*len(s.state)/2) {
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10">%s</text>`+"\n", x(s.from)+3, y+16, html.EscapeString(s.state))
			}
		}
	}
	ly := top + lanes*laneH + 34
	lx := 10
	for _, k := range []string{"True", "False", "Unknown", "NoSchedule", "NoExecute"} {
		label := "Ready=" + k
		if k == "NoSchedule" || k == "NoExecute" {
			label = "taint " + k
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", lx, ly, svgColour(k), lx+16, ly+9, label)
		lx += 130
	}
	fmt.Fprintf(&b, `<path d="M %d %d l -4 -7 h 8 z" fill="#000000"/><text x="%d" y="%d">eviction</text>`+"\n", lx+4, ly+9, lx+12, ly+9)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#3949ab" stroke-dasharray="3,3"/><text x="%d" y="%d">fault / restart</text>`+"\n", lx+90, ly, lx+90, ly+10, lx+96, ly+9)
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// zoneLane is the aggregated lane of one zone (or, when there are more
// zones than lanes, of the whole fleet).
type zoneLane struct {
	name     string
	clusters map[string]bool
}

// zoneLanes groups the clusters by zone, in the order zones first appear.
func zoneLanes(e *Engine) []zoneLane {
	var lanes []zoneLane
	index := map[string]int{}
	for _, c := range e.clusters {
		i, ok := index[c.zone]
		if !ok {
			i = len(lanes)
			index[c.zone] = i
			lanes = append(lanes, zoneLane{name: "zone " + c.zone, clusters: map[string]bool{}})
		}
		lanes[i].clusters[c.name] = true
	}
	if len(lanes) > maxSVGLanes {
		all := zoneLane{name: "fleet", clusters: map[string]bool{}}
		for _, c := range e.clusters {
			all.clusters[c.name] = true
		}
		return []zoneLane{all}
	}
	return lanes
}

// countSeg is a stretch of time during which n members of a lane were
// affected.
type countSeg struct {
	from, to time.Duration
	n        int
}

// counter turns per-member on/off changes into countSegs.
type counter struct {
	on   map[string]bool
	segs []countSeg
}

func (c *counter) set(member string, on bool, at, total time.Duration) {
	if c.on == nil {
		c.on = map[string]bool{}
	}
	if c.on[member] == on {
		return
	}
	if on {
		c.on[member] = true
	} else {
		delete(c.on, member)
	}
	if n := len(c.segs); n > 0 && c.segs[n-1].to == total {
		c.segs[n-1].to = at
	}
	c.segs = append(c.segs, countSeg{at, total, len(c.on)})
}

func drawCounts(b *bytes.Buffer, segs []countSeg, of int, colour, what string, x func(time.Duration) float64, y, h int) {
	for _, s := range segs {
		if s.n == 0 {
			continue
		}
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" fill-opacity="%.2f"><title>%d of %d %s %s..%s</title></rect>`+"\n",
			x(s.from), y, max(0.5, x(s.to)-x(s.from)), h, colour, 0.3+0.7*float64(s.n)/float64(max(1, of)), s.n, of, what, formatSimTime(s.from), formatSimTime(s.to))
	}
}

// drawZoneLanes draws one lane per zone: the share of its clusters not
// Ready and tainted over time, and its evictions.
func drawZoneLanes(b *bytes.Buffer, e *Engine, lanes []zoneLane, total time.Duration, x func(time.Duration) float64, top, laneH int) {
	for i, lane := range lanes {
		y := top + i*laneH
		var notReady, tainted counter
		taints := map[string]int{}
		evictions := map[int]int{} // by pixel column
		for _, ev := range e.tl.Events {
			if !lane.clusters[ev.Cluster] {
				continue
			}
			switch ev.Kind {
			case EvReady:
				notReady.set(ev.Cluster, !strings.Contains(ev.Detail, "-> True"), ev.At, total)
			case EvTaint:
				taints[ev.Cluster]++
				tainted.set(ev.Cluster, true, ev.At, total)
			case EvUntaint:
				taints[ev.Cluster]--
				tainted.set(ev.Cluster, taints[ev.Cluster] > 0, ev.At, total)
			case EvEvict:
				if strings.HasPrefix(ev.Detail, detailEvicted) {
					evictions[int(x(ev.At))]++
				}
			}
		}
		n := len(lane.clusters)
		fmt.Fprintf(b, `<text x="10" y="%d">%s (%d clusters)</text>`+"\n", y+15, html.EscapeString(lane.name), n)
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>Ready=True</title></rect>`+"\n",
			x(0), y+2, x(total)-x(0), laneH-12, svgColour("True"))
		drawCounts(b, notReady.segs, n, svgColour("False"), "clusters not Ready", x, y+2, laneH-12)
		drawCounts(b, tainted.segs, n, svgColour("NoExecute"), "clusters tainted", x, y+laneH-10, 6)
		cols := make([]int, 0, len(evictions))
		for px := range evictions {
			cols = append(cols, px)
		}
		slices.Sort(cols)
		for _, px := range cols {
			fmt.Fprintf(b, `<path d="M %d %d l -4 -7 h 8 z" fill="#000000"><title>%d evictions</title></path>`+"\n", px, y+2, evictions[px])
		}
	}
}

// drawWorkloadsLane draws one lane for all workloads: how many are not
// healthy on every target over time.
func drawWorkloadsLane(b *bytes.Buffer, e *Engine, total time.Duration, x func(time.Duration) float64, y, laneH int) {
	var notHealthy counter
	for _, ev := range e.tl.Events {
		if ev.Kind == EvHealth {
			notHealthy.set(ev.Workload, ev.Detail != detailHealthy, ev.At, total)
		}
	}
	n := len(e.workloads)
	fmt.Fprintf(b, `<text x="10" y="%d">workloads (%d)</text>`+"\n", y+15, n)
	fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#c8e6c9"><title>healthy on every target</title></rect>`+"\n",
		x(0), y+2, x(total)-x(0), laneH-6)
	drawCounts(b, notHealthy.segs, n, svgColour("False"), "workloads not healthy on every target", x, y+2, laneH-6)
}
