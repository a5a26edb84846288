package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// svgTexts parses svg and returns its text labels and the number of
// elements of each name.
func svgTexts(t *testing.T, svg []byte) (map[string]bool, map[string]int) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	texts, elems := map[string]bool{}, map[string]int{}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return texts, elems
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			elems[el.Name.Local]++
		case xml.CharData:
			texts[strings.TrimSpace(string(el))] = true
		}
	}
}

func TestSVGAggregatesALargeFleet(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: large\nduration: 15m\nstep: 10s\nsettings: {evictionTimeout: 1m, defaultTolerationSeconds: 30}\nclusters:\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "  - {name: c%d, zone: z%d}\n", i, i%5)
	}
	b.WriteString("workloads:\n")
	for i := range 50 {
		fmt.Fprintf(&b, "  - {name: w%d, kind: Deployment, replicas: 1, placement: {clusterAffinity: {clusterNames: [c%d, c%d]}, spreadConstraints: [{maxGroups: 1}]}}\n", i, i, i+500)
	}
	b.WriteString("faults:\n  - {at: 2m, type: zoneOutage, zone: z0, for: 5m}\n")
	e, err := NewEngine(mustParse(t, b.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatal(v)
	}
	svg := renderSVG(e)
	texts, elems := svgTexts(t, svg)
	for _, want := range []string{"zone z0 (200 clusters)", "zone z4 (200 clusters)", "workloads (50)"} {
		if !texts[want] {
			t.Errorf("no lane %q", want)
		}
	}
	if texts["c0 (z0)"] || texts["w0"] {
		t.Error("a lane per cluster or per workload in a fleet of 1,000")
	}
	if !bytes.Contains(svg, []byte("200 of 200 clusters not Ready")) || !bytes.Contains(svg, []byte("workloads not healthy on every target")) {
		t.Error("the zone outage does not show in the aggregated lanes")
	}
	// The summary reads the zone outage as one block.
	var sum strings.Builder
	if err := e.Summarize().Render(&sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"zoneOutage zone z0 (200 clusters) at +00:02:00\n", "    time to Ready not True            +30s on all 200\n"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	if n := strings.Count(sum.String(), "time to Ready not True"); n != 1 {
		t.Errorf("the summary has %d outage blocks, want 1", n)
	}
	// Five zone lanes and one workload lane: a page, not 1,050 lanes.
	if elems["text"] > 60 || len(svg) > 200_000 {
		t.Errorf("%d text elements, %d bytes", elems["text"], len(svg))
	}
}
