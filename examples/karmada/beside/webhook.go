package beside

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// webhookHost is the host Karmada's webhook configuration calls
// karmada-webhook at, in its deploy file.
const webhookHost = "karmada-webhook.karmada-system.svc:443"

// startWebhook starts karmada-webhook with the flags of Karmada's deploy
// file (artifacts/deploy/karmada-webhook.yaml) on the loopback address, and
// registers it with Karmada's own webhook configuration
// (artifacts/deploy/webhook-configuration.yaml: every mutating and
// validating webhook, failurePolicy Fail), called by URL: the
// configuration names the webhook by URL already, only its host changes.
// The scenarios then get what Karmada's users get: the policies' defaults
// (the scheduler's name, the failover behaviour's timeouts) and its
// validation.
func (cp *ControlPlane) startWebhook(ctx context.Context, ca *authority) error {
	binary, err := binaryIn(cp.Assets, "karmada-webhook")
	if err != nil {
		return err
	}
	const address = "127.0.0.1"
	cert, key, err := ca.issue("karmada-webhook", address)
	if err != nil {
		return err
	}
	certDir := filepath.Join(cp.Dir, "webhook")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return err
	}
	// controller-runtime's webhook server reads tls.crt and tls.key.
	if _, err := writeFiles(certDir, map[string][]byte{"tls.crt": cert, "tls.key": key}); err != nil {
		return err
	}
	port, err := freePort(address)
	if err != nil {
		return err
	}
	healthPort, err := freePort(address)
	if err != nil {
		return err
	}
	args := []string{
		"--kubeconfig=" + cp.Kubeconfig,
		"--bind-address=" + address,
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + certDir,
		"--metrics-bind-address=0",
		"--health-probe-bind-address=" + address + ":" + strconv.Itoa(healthPort),
		"--feature-gates=AllAlpha=true,AllBeta=true",
		"--allow-no-execute-taint-policy=true",
		"--logging-format=json",
		"--v=2",
	}
	p, err := startProcess("karmada-webhook", binary, args, cp.Dir)
	if err != nil {
		return err
	}
	cp.procs = append(cp.procs, p)
	// karmada-webhook registers no health check (its probe address
	// answers 404 to every path; it is set only so that two control
	// planes do not share the default port): it is ready once its webhook
	// server serves its certificate.
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		conn, err := tls.Dial("tcp", net.JoinHostPort(address, strconv.Itoa(port)), &tls.Config{RootCAs: ca.pool()})
		if err == nil {
			_ = conn.Close()
			break
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("karmada-webhook does not serve TLS on port %d: %w; its log ends:\n%s", port, err, p.tail(30))
		case <-time.After(200 * time.Millisecond):
		}
	}

	raw, err := os.ReadFile(filepath.Join(cp.KarmadaModuleDir, "artifacts", "deploy", "webhook-configuration.yaml"))
	if err != nil {
		return fmt.Errorf("Karmada's webhook configuration: %w", err)
	}
	raw = bytes.ReplaceAll(raw, []byte("{{caBundle}}"), []byte(base64.StdEncoding.EncodeToString(ca.pem)))
	raw = bytes.ReplaceAll(raw, []byte(webhookHost), []byte(address+":"+strconv.Itoa(port)))
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("Karmada's webhook configuration: %w", err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if err := cp.Client.Create(ctx, obj); err != nil {
			return fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
}
