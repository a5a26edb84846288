package beside

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"
)

// Writes counts the write requests (POST, PUT, PATCH, DELETE) a component
// sent through its API clients: to the control plane's API server, and to
// the member clusters (Karmada's Push-mode controllers apply the Works
// there).
type Writes struct {
	ControlPlane float64
	Members      float64
}

// Add returns the sum of w and o.
func (w Writes) Add(o Writes) Writes {
	return Writes{ControlPlane: w.ControlPlane + o.ControlPlane, Members: w.Members + o.Members}
}

// Sub returns w less o: the writes between two readings.
func (w Writes) Sub(o Writes) Writes {
	return Writes{ControlPlane: w.ControlPlane - o.ControlPlane, Members: w.Members - o.Members}
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// KarmadaWrites reads the writes of Karmada's components
// (karmada-controller-manager and karmada-scheduler) from their metrics:
// client-go's rest_client_requests_total, by method and host.
func (cp *ControlPlane) KarmadaWrites(ctx context.Context) (Writes, error) {
	own, err := url.Parse(cp.Config.Host)
	if err != nil {
		return Writes{}, err
	}
	var total Writes
	for _, p := range cp.procs {
		if p.metrics == "" {
			continue
		}
		w, err := scrapeWrites(ctx, p.metrics, own.Host)
		if err != nil {
			return Writes{}, fmt.Errorf("%s: %w", p.name, err)
		}
		total = total.Add(w)
	}
	return total, nil
}

func scrapeWrites(ctx context.Context, metricsURL, controlPlaneHost string) (Writes, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
	if err != nil {
		return Writes{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Writes{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Writes{}, fmt.Errorf("GET %s: %s", metricsURL, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return Writes{}, fmt.Errorf("GET %s: %w", metricsURL, err)
	}
	family, ok := families["rest_client_requests_total"]
	if !ok {
		return Writes{}, fmt.Errorf("GET %s: no rest_client_requests_total", metricsURL)
	}
	var w Writes
	for _, m := range family.GetMetric() {
		var method, host string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "method":
				method = l.GetValue()
			case "host":
				host = l.GetValue()
			}
		}
		if !isWrite(method) {
			continue
		}
		if host == controlPlaneHost {
			w.ControlPlane += m.GetCounter().GetValue()
		} else {
			w.Members += m.GetCounter().GetValue()
		}
	}
	return w, nil
}

// WriteCounter counts the writes of a component that runs in this
// process (fleetover-controller-manager in configuration F) at its
// transport: Wrap its rest.Config. The zero value is ready to use.
type WriteCounter struct {
	mu     sync.Mutex
	writes Writes
}

// Wrap makes the requests of cfg count: those to cfg's own host as the
// control plane's, every other as a member's.
func (c *WriteCounter) Wrap(cfg *rest.Config) error {
	own, err := url.Parse(cfg.Host)
	if err != nil {
		return err
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if isWrite(req.Method) {
				c.mu.Lock()
				if req.URL.Host == own.Host {
					c.writes.ControlPlane++
				} else {
					c.writes.Members++
				}
				c.mu.Unlock()
			}
			return rt.RoundTrip(req)
		})
	})
	return nil
}

// Writes returns the writes counted so far.
func (c *WriteCounter) Writes() Writes {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
