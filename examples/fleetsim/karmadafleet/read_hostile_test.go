package karmadafleet

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// aliasedClusters is a clusters.yaml of about size bytes: a List whose
// first item is a Cluster with a 64 KiB anchored label value, and whose
// other items alias it as many times as fits.
func aliasedClusters(size int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n- apiVersion: cluster.karmada.io/v1alpha1\n  kind: Cluster\n  metadata:\n    name: m1\n    labels: {big: &big " +
		strings.Repeat("x", 64<<10) + "}\n  spec: {syncMode: Push}\n")
	for b.Len() < size {
		b.WriteString("- *big\n")
	}
	return []byte(b.String())
}

// TestHostileFleetAliasExpansion: a 200 KB clusters.yaml whose aliases name
// a 64 KiB string is refused at MaxAliasBytes, naming the file, document
// and field, without building the expansion.
func TestHostileFleetAliasExpansion(t *testing.T) {
	data := aliasedClusters(200_000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse("clusters.yaml", data)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("error %v, want ErrInvalidInput", err)
	}
	for _, want := range []string{"clusters.yaml (document 1)", "items[", "YAML aliases expand past the limit", "*big"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %.300q lacks %q", err, want)
		}
	}
	if used, limit := after.TotalAlloc-before.TotalAlloc, uint64(64*len(data)+8<<20); used > limit {
		t.Errorf("allocated %d bytes reading %d, want at most %d", used, len(data), limit)
	}
}

// TestHostileFleetAliasBudgetSpansFiles: the alias bound is the whole
// input's, not each file's.
func TestHostileFleetAliasBudgetSpansFiles(t *testing.T) {
	dir := t.TempDir()
	// Each file adds about 600 KB through aliases: one is read, two are not.
	doc := "apiVersion: v1\nkind: List\nmetadata: {name: x, annotations: {a: &a " + strings.Repeat("y", 60_000) + "}}\nitems: []\n" +
		"x: [" + strings.Repeat("*a, ", 9) + "*a]\n"
	for _, name := range []string{"a.yaml", "b.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Parse("a.yaml", []byte(doc)); err != nil && strings.Contains(err.Error(), "aliases") {
		t.Fatalf("one file alone: %v", err)
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "b.yaml (document 1)") || !strings.Contains(err.Error(), "YAML aliases expand past the limit") {
		t.Fatalf("error %v, want b.yaml refused at the alias bound", err)
	}
}

// TestHostileFleetManyInvalidDocuments: many tiny invalid documents give a
// bounded list of errors.
func TestHostileFleetManyInvalidDocuments(t *testing.T) {
	_, err := Parse("many.yaml", []byte(strings.Repeat("---\n{}\n", 100_000)))
	var list InputErrors
	if !errors.As(err, &list) || len(list) != maxErrors+1 || !strings.Contains(list[len(list)-1].Error(), "Too many") {
		t.Fatalf("got %d errors, want %d and a last one saying so", len(list), maxErrors+1)
	}
}

// TestHostileFleetSpecialFile: a FIFO named as the input is refused by
// name, not opened (its open would block until a writer came).
func TestHostileFleetSpecialFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fleet.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(fifo)
	if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), fifo+": ") || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("error %v, want %s refused", err, fifo)
	}
}
