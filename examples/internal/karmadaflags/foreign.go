package karmadaflags

import (
	"fmt"
	"strings"
)

// foreignOwner names the Karmada component a flag belongs to when it is
// not karmada-controller-manager's: given to the controller manager, it is
// a mistake (the wrong component's deploy file, say), so it is refused
// with the component named rather than as an unknown flag.
func foreignOwner(name string) (string, bool) {
	switch name {
	case "karmada-kubeconfig", "karmada-context", "karmada-kubeconfig-namespace", "cluster-name", "cluster-namespace",
		"cluster-lease-duration", "cluster-lease-renew-interval-fraction", "cluster-api-endpoint", "proxy-server-address",
		"report-secrets", "cluster-provider", "cluster-region", "cluster-zones", "cert-rotation-checking-interval",
		"cert-rotation-remaining-time-threshold":
		return "karmada-agent", true
	case "scheduler-name", "plugins", "enable-scheduler-estimator", "disable-scheduler-estimator-in-pull-mode",
		"enable-empty-workload-propagation", "scheduler-estimator-port", "scheduler-estimator-timeout",
		"scheduler-estimator-service-prefix", "scheduler-estimator-service-namespace", "scheduler-estimator-ca-file",
		"scheduler-estimator-cert-file", "scheduler-estimator-key-file", "insecure-skip-estimator-verify",
		"leader-elect-resource-name":
		return "karmada-scheduler", true
	case "descheduling-interval", "unschedulable-threshold":
		return "karmada-descheduler", true
	case "bind-address", "secure-port", "cert-dir", "tls-cert-file-name", "tls-private-key-file-name", "tls-min-version",
		"allow-no-execute-taint-policy":
		return "karmada-webhook", true
	case "grpc-auth-cert-file", "grpc-auth-key-file", "grpc-client-ca-file", "insecure-skip-grpc-client-verify", "server-port", "parallelism":
		return "karmada-scheduler-estimator", true
	case "master":
		return "karmada-scheduler (the controller manager takes --kubeconfig only)", true
	}
	return "", false
}

// Foreign returns an error for the first argument that is a flag of
// another Karmada component, naming that component; nil when there is
// none. Call it before parsing, so the message names the owner instead of
// the flag package's "flag provided but not defined".
func Foreign(args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name := strings.TrimLeft(a, "-")
		name, _, _ = strings.Cut(name, "=")
		if owner, ok := foreignOwner(name); ok {
			return fmt.Errorf("flag --%s belongs to %s, not to karmada-controller-manager: give it to that component", name, owner)
		}
	}
	return nil
}

// Split splits a command line given as one string (the simulator's
// -karmada-flags) into arguments as a POSIX shell would for words made of
// plain characters, single quotes, double quotes and backslash escapes;
// no expansion happens. An unterminated quote is an error.
func Split(line string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0:
				i++
				cur.WriteByte(line[i])
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\':
			if i+1 < len(line) {
				i++
				if line[i] != '\n' {
					cur.WriteByte(line[i])
				}
			}
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, line)
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}
