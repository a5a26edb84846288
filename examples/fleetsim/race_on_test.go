//go:build race

package main

// raceDetector reports whether the test binary runs under the race
// detector, which slows the simulator's single-threaded steps tenfold and
// more: tests that draw many schedules to find rare decisions run fewer
// there, since what the detector checks (the campaign's workers sharing
// results) does not grow with the count.
const raceDetector = true
