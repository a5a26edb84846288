package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

//go:embed scenario.yaml
var embeddedScenario []byte

// config is the parsed command line.
type config struct {
	scenario  string
	fleet     string
	explain   string
	report    string
	seed      int64
	campaign  int
	progress  bool
	quiet     bool
	scale     bool
	clusters  int
	workloads int
	failPct   int
	failZone  string
	output    string
	noFencing bool
	// rules (-rules), karmadaFlags (-karmada-flags) and compare
	// (-compare) say which control plane a -fleet run models.
	rules        string
	karmadaFlags string
	compare      bool
	// karmada is -karmada-flags parsed.
	karmada *karmadaLine
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code (0 ok, 1 an
// invariant was violated, 2 bad usage or input).
func run(args []string, stdout, stderr io.Writer) int {
	cfg, set, code := parseArgs(args, stderr)
	if code >= 0 {
		return code
	}
	// The bar is for long runs: drawn on a terminal for a campaign of 100
	// schedules or more and a scenario of 20,000 steps or more (a day at
	// 5 s steps); -progress draws it anywhere.
	terminal := isTerminal(stderr)
	switch {
	case cfg.scale:
		return runScale(cfg, stdout, stderr)
	case set["campaign"]:
		return runCampaignCmd(cfg, stdout, stderr, cfg.progress || (terminal && cfg.campaign >= 100))
	}
	return runScenario(cfg, stdout, stderr, cfg.progress, terminal)
}

// Bounds of the numeric flags.
const (
	maxCampaignSchedules = 10_000_000
	maxScaleClusters     = 65535
	maxScaleWorkloads    = 100_000_000
)

// validateFlags rejects values out of range and flags that would do nothing
// in the mode asked for; set holds the flags given on the command line.
func validateFlags(cfg config, set map[string]bool) error {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if set["campaign"] && (cfg.campaign < 1 || cfg.campaign > maxCampaignSchedules) {
		bad("-campaign: must be between 1 and %d schedules, got %d", maxCampaignSchedules, cfg.campaign)
	}
	for _, name := range []string{"clusters", "workloads", "fail-percent", "fail-zone"} {
		if set[name] && !cfg.scale {
			bad("-%s: only sizes the -scale wave; add -scale", name)
		}
	}
	if cfg.scale {
		for _, name := range []string{"campaign", "scenario", "fleet", "report", "quiet", "progress"} {
			if set[name] {
				bad("-%s: does nothing with -scale (the scale wave builds its own fleet and prints figures only)", name)
			}
		}
		if cfg.clusters < 2 || cfg.clusters > maxScaleClusters {
			bad("-clusters: must be between 2 and %d, got %d", maxScaleClusters, cfg.clusters)
		}
		if cfg.workloads < 1 || cfg.workloads > maxScaleWorkloads {
			bad("-workloads: must be between 1 and %d, got %d", maxScaleWorkloads, cfg.workloads)
		}
		if cfg.failPct < 1 || cfg.failPct > 100 {
			bad("-fail-percent: must be between 1 and 100, got %d", cfg.failPct)
		}
		if set["fail-zone"] && set["fail-percent"] {
			bad("-fail-zone: fails a whole zone instead of -fail-percent of the clusters; give one of the two")
		}
		if set["fail-zone"] && cfg.failZone == "" {
			bad("-fail-zone: names a zone of the -scale fleet, e.g. region-0a")
		}
	}
	if set["fleet"] && cfg.fleet == "" {
		bad("-fleet: names a file or directory of Karmada objects")
	}
	if cfg.output != "text" && cfg.output != "json" {
		bad("-o: must be text or json, got %q", cfg.output)
	}
	if cfg.scale && cfg.output == "json" {
		bad("-o json: the -scale wave prints text figures only")
	}
	if set["explain"] {
		switch {
		case cfg.explain == "":
			bad("-explain: names a workload of the scenario")
		case cfg.scale || set["campaign"]:
			bad("-explain: explains one workload of one scenario run, not a -campaign or -scale run")
		case cfg.output == "json":
			bad("-explain: prints text for people; it does not combine with -o json")
		case set["quiet"]:
			bad("-quiet: does nothing with -explain (the chains replace the timeline)")
		}
	}
	if set["no-fencing"] && (!set["campaign"] || set["scenario"] || set["fleet"]) {
		bad("-no-fencing: only changes the random fleets of a -campaign (a -scenario or -fleet sets settings.fenceAfter itself)")
	}
	if cfg.rules != "" && cfg.rules != RulesKarmada && cfg.rules != RulesFleetover {
		bad("-rules: must be %s or %s, got %q", RulesKarmada, RulesFleetover, cfg.rules)
	}
	for _, name := range []string{"rules", "karmada-flags", "compare"} {
		if set[name] && !set["fleet"] {
			bad("-%s: models the Karmada control plane of a -fleet export; add -fleet (a -scenario sets settings.rules itself)", name)
		}
	}
	if set["compare"] {
		switch {
		case set["rules"]:
			bad("-rules: -compare runs both rules")
		case set["campaign"] || cfg.scale:
			bad("-compare: compares one run of the fleet, not a -campaign or -scale")
		case set["explain"]:
			bad("-explain: explains one run; it does not combine with -compare")
		}
	}
	if set["campaign"] && set["quiet"] {
		bad("-quiet: does nothing with -campaign (a campaign prints no timeline)")
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(errs, "\n"))
}

// usageError reports a bad command line the way the flag package does:
// the problem, then the usage; the exit code is 2.
func usageError(fs *flag.FlagSet, stderr io.Writer, msg string) int {
	for _, line := range strings.Split(msg, "\n") {
		fmt.Fprintln(stderr, "fleetsim: "+line)
	}
	fs.Usage()
	return 2
}

// parseArgs parses and validates the command line. A usage error or -h is
// reported on stderr and returns the exit code; otherwise the code is -1
// and set holds the flags given.
func parseArgs(args []string, stderr io.Writer) (cfg config, set map[string]bool, code int) {
	fs := flag.NewFlagSet("fleetsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.scenario, "scenario", "", "YAML scenario `file` (default: the embedded scenario)")
	fs.StringVar(&cfg.fleet, "fleet", "", "start from a Karmada export: a `file or directory` of kubectl get -o yaml output (with -scenario: its settings and faults laid over this fleet)")
	fs.StringVar(&cfg.report, "report", "", "write report.md and timeline.svg into `dir`")
	fs.Int64Var(&cfg.seed, "seed", 0, "seed for randomness (default: the scenario's seed; campaign: 1)")
	fs.IntVar(&cfg.campaign, "campaign", 0, "run `N` randomized fault schedules: on the -fleet or -scenario fleet when given, else on random fleets")
	fs.BoolVar(&cfg.progress, "progress", false, "show a progress bar on stderr even when it is not a terminal")
	fs.StringVar(&cfg.explain, "explain", "", "print why `WORKLOAD` is where it is (its chain from cluster to dispatch) whenever that changes, instead of the timeline")
	fs.BoolVar(&cfg.quiet, "quiet", false, "print the summary only, not the timeline")
	fs.BoolVar(&cfg.scale, "scale", false, "run the scale wave: many clusters and workloads, a share of clusters failing")
	fs.IntVar(&cfg.clusters, "clusters", 1000, "clusters in the -scale fleet")
	fs.IntVar(&cfg.workloads, "workloads", 1_000_000, "workloads in the -scale fleet")
	fs.IntVar(&cfg.failPct, "fail-percent", 10, "percentage of clusters failing in the -scale wave, drawn over every zone")
	fs.StringVar(&cfg.failZone, "fail-zone", "", "fail every cluster of `zone` in the -scale wave (a zone outage) instead of -fail-percent, e.g. region-0a")
	fs.BoolVar(&cfg.noFencing, "no-fencing", false, "with -campaign on random fleets: Pull agents do not fence (settings.fenceAfter unset), to see the double writer a partition makes")
	fs.StringVar(&cfg.output, "o", "text", "output `format`: text (for people) or json (summary and timeline, for tools)")
	fs.StringVar(&cfg.rules, "rules", "", "with -fleet: the control plane's `rules`, karmada (default: what the export's Karmada does) or fleetover (the library's)")
	fs.StringVar(&cfg.karmadaFlags, "karmada-flags", "", "with -fleet: karmada-controller-manager's `command line`, e.g. '--feature-gates=Failover=true --enable-no-execute-taint-eviction=true' (default: Karmada's defaults)")
	fs.BoolVar(&cfg.compare, "compare", false, "with -fleet: run the fleet and faults under Karmada's rules and under fleetover's, and print per workload what differs")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, nil, 0
		}
		return cfg, nil, 2
	}
	if fs.NArg() > 0 {
		return cfg, nil, usageError(fs, stderr, fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := validateFlags(cfg, set); err != nil {
		return cfg, nil, usageError(fs, stderr, err.Error())
	}
	if cfg.fleet != "" {
		k, err := parseKarmadaFlags(cfg.karmadaFlags)
		if err != nil {
			return cfg, nil, usageError(fs, stderr, "-karmada-flags: "+err.Error())
		}
		cfg.karmada = k
	}
	return cfg, set, -1
}

func loadScenario(path string) (*Scenario, error) {
	if path == "" {
		return ParseScenario("scenario.yaml (embedded)", embeddedScenario)
	}
	data, err := readScenarioFile(path)
	if err != nil {
		return nil, errFlag("scenario", err)
	}
	sc, err := ParseScenario(path, data)
	if err != nil && looksLikeExport(data) {
		return nil, errFlag("scenario", fmt.Errorf("%s holds Karmada objects (kubectl get -o yaml output), not a scenario: run it with -fleet %s", path, path))
	}
	return sc, errFlag("scenario", err)
}

// looksLikeExport reports whether data is Karmada objects rather than a
// scenario: its first document has an apiVersion of a karmada.io group, or
// is a List.
func looksLikeExport(data []byte) bool {
	var m map[string]any
	if yaml.Unmarshal(data, &m) != nil {
		return false
	}
	v, _ := m["apiVersion"].(string)
	k, _ := m["kind"].(string)
	return strings.Contains(v, "karmada.io/") || (k == "List" && m["items"] != nil)
}

// readScenarioFile reads at most one byte more than a scenario may hold, so
// that the parser reports an oversized file instead of reading all of it.
func readScenarioFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxScenarioBytes+1))
}

func runScenario(cfg config, stdout, stderr io.Writer, forceProgress, terminal bool) int {
	if cfg.compare {
		return runCompare(cfg, stdout, stderr)
	}
	sc, fleet, err := loadScenarioOrFleet(cfg, cfg.rules, stdout, stderr)
	if err != nil {
		printErr(stderr, err)
		return 2
	}
	header := stdout
	if cfg.output == "json" {
		header = stderr
	}
	printHeader(header, sc, fleet)
	fmt.Fprintln(header)
	showProgress := forceProgress || (terminal && sc.Duration.D()/sc.Step.D() >= 20_000)
	opts := Options{Seed: cfg.seed, KeepGoing: true}
	if cfg.explain != "" {
		opts.Explain, opts.ExplainTo = cfg.explain, stdout
		cfg.quiet = true
	}
	var bar *progressBar
	if showProgress {
		bar = newProgressBar(stderr, "simulating")
		opts.Progress = bar.update
	}
	started := time.Now()
	e, err := NewEngine(sc, opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	violations := e.Run()
	elapsed := time.Since(started)
	if cfg.seed != 0 && !e.DrewAtRandom() {
		// -seed on a run with no randomness: say so, on stderr so JSON
		// stays one document.
		fmt.Fprintf(stderr, "fleetsim: -seed %d: this run drew nothing at random (every job id comes from the scenario), so the seed changed nothing\n", cfg.seed)
	}
	if err := e.ExplainErr(); err != nil {
		fmt.Fprintln(stderr, "fleetsim: -explain:", err)
		return 2
	}
	if bar != nil {
		bar.done()
	}
	if cfg.output == "json" {
		sum := e.Summarize()
		if err := writeJSON(stdout, sum, e.Timeline(), !cfg.quiet); err != nil {
			fmt.Fprintln(stderr, "fleetsim:", err)
			return 2
		}
		if cfg.report != "" {
			if err := writeReport(cfg.report, e, sum); err != nil {
				fmt.Fprintln(stderr, "fleetsim: report:", err)
				return 2
			}
			fmt.Fprintf(stderr, "fleetsim: report written to %s (report.md, timeline.svg)\n", cfg.report)
		}
		return violationsCode(sc, violations)
	}
	if !cfg.quiet {
		fmt.Fprintf(stdout, "TIMELINE  scenario %q (%s)\n", sc.Name, sc.Description)
		if err := e.Timeline().Render(stdout); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		fmt.Fprintln(stdout)
	}
	sum := e.Summarize()
	if err := sum.Render(stdout); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	fmt.Fprintf(stdout, "  simulated %s of fleet time in %s of wall time\n", e.Elapsed(), elapsed.Round(time.Millisecond))
	if cfg.report != "" {
		if err := writeReport(cfg.report, e, sum); err != nil {
			fmt.Fprintln(stderr, "fleetsim: report:", err)
			return 2
		}
		fmt.Fprintf(stdout, "  report written to %s (report.md, timeline.svg)\n", cfg.report)
	}
	return violationsCode(sc, violations)
}

// violationsCode is a run's exit code: 1 when an invariant was violated.
// The invariants are fleetover's promises: under Karmada's rules a
// violation is a finding about Karmada (reported, exit 0), unless the
// simulator itself failed (no-panic).
func violationsCode(sc *Scenario, violations []Violation) int {
	for _, v := range violations {
		if !sc.Settings.karmada() || v.Invariant == InvNoPanic {
			return 1
		}
	}
	return 0
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
