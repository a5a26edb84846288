package main

import (
	"testing"
)

// BenchmarkEmbeddedScenario runs the embedded scenario: 90 minutes of fleet
// time, 1,080 steps.
func BenchmarkEmbeddedScenario(b *testing.B) {
	sc, err := ParseScenario("scenario.yaml", embeddedScenario)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		e, err := NewEngine(sc, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if v := e.Run(); len(v) > 0 {
			b.Fatal(v)
		}
	}
}

// BenchmarkCampaignSchedule generates, parses and runs one random schedule
// (one hour of fleet time), as the campaign does 1,000 times.
func BenchmarkCampaignSchedule(b *testing.B) {
	b.ReportAllocs()
	seed := int64(0)
	for b.Loop() {
		seed++
		sc, err := ParseScenario("campaign.yaml", RandomScenario(seed, 0))
		if err != nil {
			b.Fatal(err)
		}
		e, err := NewEngine(sc, Options{})
		if err != nil {
			b.Fatal(err)
		}
		e.Timeline().Quiet = true
		if v := e.Run(); len(v) > 0 {
			b.Fatal(v)
		}
	}
}

// BenchmarkScaleWave100k times the decisions of a wave over 1,000 clusters
// and 100,000 workloads with 10 % of the clusters failing (the fleet is
// rebuilt outside the timer for every iteration). The full-size wave is the
// -scale command (docs/performance.md).
func BenchmarkScaleWave100k(b *testing.B) {
	cfg := ScaleConfig{Clusters: 1000, Workloads: 100_000, FailPercent: 10, StatefulEvery: 10, Seed: 1}
	b.ReportAllocs()
	var evicted int
	for b.Loop() {
		b.StopTimer()
		f, err := buildScaleFleet(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		evicted = runWave(f, cfg).Evicted
	}
	b.ReportMetric(float64(evicted), "evictions/wave")
}
