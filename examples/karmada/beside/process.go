package beside

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// process is one control plane component the harness started: its
// command, and its output in a log file kept for failure messages.
type process struct {
	name    string
	binary  string
	args    []string
	dir     string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error
	// health is the URL that answers 200 once the process is up.
	health string
	// metrics is the URL of its Prometheus metrics, if it serves them.
	metrics string
}

// startProcess starts binary with args, its output going to a log file in
// dir. The process is killed when the test process dies (Pdeathsig), so a
// test that times out leaves no component behind.
func startProcess(name, binary string, args []string, dir string) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, binary, err)
	}
	p := &process{name: name, binary: binary, args: args, dir: dir, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process ended, with its error.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// stop ends the process: SIGTERM, then SIGKILL if it has not ended after
// grace.
func (p *process) stop(grace time.Duration) {
	if done, _ := p.exited(); done {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// restart stops the process and starts it again with the same command
// line, as a new process: nothing in its memory survives. It returns once
// the new one answers healthy.
func (p *process) restart(ctx context.Context) error {
	p.stop(10 * time.Second)
	np, err := startProcess(p.name, p.binary, p.args, p.dir)
	if err != nil {
		return err
	}
	np.health, np.metrics = p.health, p.metrics
	*p = *np
	if p.health == "" {
		return nil
	}
	return p.waitHealthy(ctx, p.health)
}

// tail returns the last lines of the process's log.
func (p *process) tail(lines int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return err.Error()
	}
	all := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return string(bytes.Join(all, []byte("\n")))
}

// waitHealthy polls url (a component's health endpoint) until it answers
// 200, the process ends, or ctx ends; TLS is not verified (the harness
// starts the component itself).
func (p *process) waitHealthy(ctx context.Context, url string) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the harness's own component
	}}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	last := ""
	for {
		if done, err := p.exited(); done {
			return fmt.Errorf("%s exited (%v) before %s answered; its log ends:\n%s", p.name, err, url, p.tail(30))
		}
		resp, err := client.Get(url)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer %s healthy (last: %s); its log ends:\n%s", p.name, url, last, p.tail(30))
		case <-tick.C:
		}
	}
}

// freePort returns a TCP port nothing listens on now, on address.
func freePort(address string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(address, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// routableAddress is an IPv4 address of this machine outside the loopback
// range. The aggregation layer reaches an aggregated API server through a
// Service's endpoints, and the API server refuses loopback endpoints.
func routableAddress() (string, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return "", err
	}
	for _, iface := range ifaces {
		if iface.Flags&net.FlagUp == 0 || iface.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := iface.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
				return ipn.IP.String(), nil
			}
		}
	}
	return "", errors.New("this machine has no IPv4 address outside the loopback range; the aggregated Cluster API needs one " +
		"(the API server refuses loopback endpoints): add one, e.g. `ip link add fleetover0 type dummy && ip addr add 10.254.254.1/32 dev fleetover0 && ip link set fleetover0 up`")
}

// binaryIn returns the path of a component in the assets folder, with a
// clear error when it is missing.
func binaryIn(assets, name string) (string, error) {
	p := filepath.Join(assets, name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s is not in KUBEBUILDER_ASSETS=%s (build the assets with hack/kube-assets.sh): %w", name, assets, err)
	}
	return p, nil
}

// joinArgs prints args for a log line.
func joinArgs(args []string) string { return strings.Join(args, " ") }
