package lua

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc):
// a bound on work that does not depend on the machine's speed.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// aliasedCustomization is a customization whose script is a YAML anchor
// of size bytes, aliased n times in a list beside it.
func aliasedCustomization(size, n int) []byte {
	var b strings.Builder
	b.WriteString(`apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: widget
spec:
  target: {apiVersion: example.com/v1, kind: Widget}
  customizations:
    healthInterpretation:
      luaScript: &script "` + strings.Repeat("x", size) + `"
    copies:
`)
	for range n {
		b.WriteString("    - *script\n")
	}
	return []byte(b.String())
}

// TestHostileCustomizationAliasExpansion: a small file whose aliases name a
// large string is refused at the alias bound, with an error that names the
// document and field, before the expansion is built.
func TestHostileCustomizationAliasExpansion(t *testing.T) {
	for name, data := range map[string][]byte{
		"75 KB, 3,001 aliases of 64 KiB":  aliasedCustomization(64<<10, 3001),
		"1 MiB, 15,000 aliases of 64 KiB": aliasedCustomization(64<<10, 15_000),
	} {
		t.Run(name, func(t *testing.T) {
			var c Customizations
			var err error
			used := allocated(func() { c, err = ParseCustomizations(data, "bomb.yaml") })
			if !errors.Is(err, ErrAliasLimit) || !errors.Is(err, ErrInvalidCustomization) {
				t.Fatalf("error %v, want ErrAliasLimit", err)
			}
			if len(c.Items) != 0 {
				t.Errorf("read %d items from a refused document", len(c.Items))
			}
			msg := err.Error()
			for _, want := range []string{"bomb.yaml: document 1", "spec.customizations.copies[", "*script"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not name %q", msg, want)
				}
			}
			// The input is parsed (a node per line) and the expansion is
			// measured, not built: a few times the input, far below the
			// gigabytes the expansion would take.
			if limit := uint64(64*len(data)) + 8<<20; used > limit {
				t.Errorf("allocated %d bytes reading %d, want at most %d", used, len(data), limit)
			}
		})
	}
}

// TestHostileCustomizationAliasesWithinBound: aliases that add less than
// MaxCustomizationAliasBytes are expanded as YAML says.
func TestHostileCustomizationAliasesWithinBound(t *testing.T) {
	doc := `apiVersion: v1
kind: List
items:
- apiVersion: config.karmada.io/v1alpha1
  kind: ResourceInterpreterCustomization
  metadata: {name: widget}
  spec:
    target: &target {apiVersion: example.com/v1, kind: Widget}
    customizations:
      healthInterpretation:
        luaScript: &script "function InterpretHealth(o) return true end"
- apiVersion: config.karmada.io/v1alpha1
  kind: ResourceInterpreterCustomization
  metadata: {name: widget-v2}
  spec:
    target:
      <<: *target
      apiVersion: example.com/v2
    customizations:
      healthInterpretation:
        luaScript: *script
`
	c, err := ParseCustomizations([]byte(doc), "in.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Items) != 2 || c.Items[1].Target.String() != "example.com/v2, Kind=Widget" || c.Items[1].HealthScript != c.Items[0].HealthScript {
		t.Fatalf("items %+v", c.Items)
	}
}

// TestHostileCustomizationEmptyDocuments: a file of empty documents, at the
// size bound, is read at a small constant cost per document (one parser
// for the whole stream, not a parser and a JSON round trip per document).
func TestHostileCustomizationEmptyDocuments(t *testing.T) {
	data := []byte(strings.Repeat("---\n", MaxCustomizationFileBytes/4))
	docs := len(data) / 4
	var c Customizations
	var err error
	used := allocated(func() { c, err = ParseCustomizations(data, "empty.yaml") })
	if err != nil || len(c.Items) != 0 || len(c.Skipped) != 0 {
		t.Fatalf("%+v, %v; want nothing read and no error", c, err)
	}
	if perDoc := used / uint64(docs); perDoc > 1024 {
		t.Errorf("allocated %d bytes per empty document, want at most 1 KiB", perDoc)
	}
}

// TestHostileCustomizationManyInvalidDocuments: a file of many tiny invalid
// documents reports a bounded number of errors, the last saying the rest
// was not read.
func TestHostileCustomizationManyInvalidDocuments(t *testing.T) {
	for name, data := range map[string]string{
		"YAML": strings.Repeat("---\n{}\n", 100_000),
		"JSON": strings.Repeat("{}", 100_000),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseCustomizations([]byte(data), "many.yaml")
			var joined interface{ Unwrap() []error }
			if !errors.As(err, &joined) {
				t.Fatalf("error %v is not a joined error", err)
			}
			errs := joined.Unwrap()
			if len(errs) != maxCustomizationErrors+1 || !strings.Contains(errs[len(errs)-1].Error(), "not read") {
				t.Fatalf("%d errors, last %v; want %d and a last one saying the rest was not read", len(errs), errs[len(errs)-1], maxCustomizationErrors+1)
			}
		})
	}
}

// TestHostileLoadCustomizationsSpecialFiles: a FIFO, a device or a socket
// among the files is refused by name, without opening it (a FIFO with no
// writer would block the open for ever); a symbolic link to a regular
// file is read, and one to a device is refused.
func TestHostileLoadCustomizationsSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	good := ric("widget", "example.com/v1", "Widget", phaseRunning)
	if err := os.WriteFile(filepath.Join(dir, "a-good.yaml"), []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a-good.yaml", filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCustomizations(os.DirFS(dir), ".")
	if !errors.Is(err, ErrInvalidCustomization) || !errors.Is(err, ErrNotRegularFile) {
		t.Fatalf("error %v, want ErrNotRegularFile", err)
	}
	for _, name := range []string{"fifo.yaml", "zero.yaml"} {
		if !strings.Contains(err.Error(), name+": ") {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	if strings.Contains(err.Error(), "link.yaml") {
		t.Errorf("error %q refuses the link to a regular file", err)
	}
	if len(c.Items) != 2 {
		t.Errorf("read %d items, want the good file's and its link's", len(c.Items))
	}

	// Named directly, the FIFO is refused alike.
	_, err = LoadCustomizations(os.DirFS(dir), "fifo.yaml")
	if !errors.Is(err, ErrNotRegularFile) || !strings.HasPrefix(err.Error(), "fifo.yaml: ") {
		t.Fatalf("error %v, want fifo.yaml refused", err)
	}
}

// TestHostileLoadCustomizationsOpenNeverBlocks: a file swapped for a FIFO
// after the check is opened without blocking (os.DirFS) and refused by the
// opened file's mode.
func TestHostileLoadCustomizationsOpenNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "swapped.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	// openFile is what loadFile calls once Stat said "regular file".
	f, err := openFile(os.DirFS(dir), "swapped.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Mode().IsRegular() || info.Mode().Type() != fs.ModeNamedPipe {
		t.Fatalf("opened %v, %v; want the FIFO, opened without a writer", info, err)
	}
	if _, err := openFile(os.DirFS(dir), "../x"); err == nil {
		t.Error("openFile left the directory")
	}
}

// TestHostileLoadCustomizationsOpenedFileChecked: a file system whose Stat
// says "regular" while the file it opens is not is refused on the opened
// file's mode.
func TestHostileLoadCustomizationsOpenedFileChecked(t *testing.T) {
	fsys := fstest.MapFS{"swapped.yaml": {Data: []byte("x")}}
	_, err := loadFile(swappedFS{fsys}, "swapped.yaml")
	if !errors.Is(err, ErrNotRegularFile) || !strings.HasPrefix(err.Error(), "swapped.yaml: ") {
		t.Fatalf("error %v, want swapped.yaml refused", err)
	}
}

// swappedFS stats its files as they are and opens them as devices.
type swappedFS struct{ fstest.MapFS }

func (s swappedFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return deviceFile{f}, nil
}

func (s swappedFS) Stat(name string) (fs.FileInfo, error) { return s.MapFS.Stat(name) }

type deviceFile struct{ fs.File }

func (d deviceFile) Stat() (fs.FileInfo, error) {
	info, err := d.File.Stat()
	return deviceInfo{info}, err
}

type deviceInfo struct{ fs.FileInfo }

func (deviceInfo) Mode() fs.FileMode { return fs.ModeDevice | fs.ModeCharDevice | 0o666 }
