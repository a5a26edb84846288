package karmadafleet

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any input is read or refused with an ErrInvalidInput error;
// never a panic, and a fleet read names every object it holds.
func FuzzParse(f *testing.F) {
	f.Add([]byte(clusterDoc + "---\n" + bindingDoc + "---\n" + policyDoc))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n" + indentItem(clusterDoc)))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"List","items":[]}]}`))
	files, _ := filepath.Glob(filepath.Join(exportDir, "*.yaml"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := Parse("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("error %v does not wrap ErrInvalidInput", err)
			}
			return
		}
		for _, c := range fl.Clusters {
			if c.Name == "" || (c.SyncMode != "Push" && c.SyncMode != "Pull") {
				t.Fatalf("cluster %+v read without a name or sync mode", c)
			}
			for _, w := range fl.Workloads {
				_, _ = c.Matches(ClusterAffinity{})
				if w.Placement != nil && w.Placement.ClusterAffinity != nil {
					_, _ = c.Matches(*w.Placement.ClusterAffinity)
				}
			}
		}
		for _, w := range fl.Workloads {
			if w.Binding.Name == "" || w.Resource.Kind == "" || w.Resource.Name == "" || w.Replicas < 0 {
				t.Fatalf("workload %+v read without its names or with negative replicas", w)
			}
		}
		for _, fd := range fl.Findings {
			if fd.Message == "" || fd.File != "fuzz.yaml" {
				t.Fatalf("finding %+v", fd)
			}
		}
	})
}
