package e2e

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// auditPolicy logs, at Metadata level and once per request (when its
// response is complete), every request on Deployments, ReplicaSets
// (status included) and Events, and the reads (get, list, watch) of pods,
// and nothing else: the load's API cost counted from the apiserver's side.
// Pod writes (the pod driver's, the ReplicaSet controller's) are left out:
// no Deployment controller writes pods, and they are most of the volume.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: Metadata
  resources:
  - group: apps
    resources: ["deployments", "deployments/status", "replicasets", "replicasets/status"]
  - group: ""
    resources: ["events"]
  - group: events.k8s.io
    resources: ["events"]
- level: Metadata
  verbs: ["get", "list", "watch"]
  resources:
  - group: ""
    resources: ["pods"]
- level: None
`

// auditLogs maps an apiserver's host to its audit log file (test-only).
var auditLogs sync.Map

// auditFlags writes the audit policy into dir and returns the apiserver
// flags that write the audit log as JSON lines into dir.
func auditFlags(t *testing.T, dir string) (flags []string, logPath string) {
	t.Helper()
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		t.Fatalf("audit policy: %v", err)
	}
	logPath = filepath.Join(dir, "audit.log")
	// --audit-log-maxsize=0: one file. The default rotates it at 100 MB,
	// and the full load's log is larger: the first full run on the audit
	// log read only its last 10 s.
	return []string{"--audit-policy-file=" + policy, "--audit-log-path=" + logPath, "--audit-log-format=json", "--audit-log-mode=blocking",
		"--audit-log-maxsize=0"}, logPath
}

// auditEvent is the part of an audit.k8s.io/v1 Event the load counts.
type auditEvent struct {
	Stage     string `json:"stage"`
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Received time.Time `json:"requestReceivedTimestamp"`
}

// auditCost is what one component asked of the apiserver in one phase,
// as the apiserver's audit log records it.
type auditCost struct {
	byVerb    map[string]int // "verb resource[/sub]" -> requests
	byCode    map[int]int    // response code -> requests
	writes    int            // create, update, patch, delete of Deployments and ReplicaSets
	conflicts int            // of those, the ones the apiserver answered with 409
}

// agentOf names the component that sent a request by the last element of
// its user agent (clientFor's and AddUserAgent's suffix).
func agentOf(ua string) string {
	if i := strings.LastIndex(ua, "/"); i >= 0 {
		return ua[i+1:]
	}
	return ua
}

// readAuditCosts reads the audit log and returns, by phase (the phase whose
// start is the last before the request was received; the first phase for
// those before it), by flavour (from the
// namespace) and by agent, what each component of the load asked.
func readAuditCosts(path string, phaseStarts []time.Time, flavours []string) ([]map[string]map[string]*auditCost, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([]map[string]map[string]*auditCost, len(phaseStarts))
	for i := range out {
		out[i] = map[string]map[string]*auditCost{}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("audit log: %v", err)
		}
		if ev.Stage != "ResponseComplete" || ev.ObjectRef == nil {
			continue
		}
		agent := agentOf(ev.UserAgent)
		fl := ""
		for _, name := range flavours {
			if strings.HasPrefix(ev.ObjectRef.Namespace, "load-"+name+"-") {
				fl = name
			}
		}
		if ev.ObjectRef.Namespace == "" {
			// A list or watch across namespaces (the load's informers): the
			// flavour whose controller sent it.
			fl = agentFlavours[agent]
		}
		if fl == "" {
			continue
		}
		p := sort.Search(len(phaseStarts), func(i int) bool { return phaseStarts[i].After(ev.Received) }) - 1
		if p < 0 {
			p = 0 // the informers' first lists, before the first phase
		}
		if out[p][fl] == nil {
			out[p][fl] = map[string]*auditCost{}
		}
		c := out[p][fl][agent]
		if c == nil {
			c = &auditCost{byVerb: map[string]int{}, byCode: map[int]int{}}
			out[p][fl][agent] = c
		}
		res := ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			res += "/" + ev.ObjectRef.Subresource
		}
		c.byVerb[ev.Verb+" "+res]++
		code := 0
		if ev.ResponseStatus != nil {
			code = ev.ResponseStatus.Code
		}
		c.byCode[code]++
		if ev.ObjectRef.Resource != "deployments" && ev.ObjectRef.Resource != "replicasets" {
			continue
		}
		switch ev.Verb {
		case "create", "update", "patch", "delete":
			c.writes++
			if code == 409 {
				c.conflicts++
			}
		}
	}
	return out, sc.Err()
}

// controllerAgents are the user agents of the Deployment controllers the
// load compares (kube-controller-manager's, our client-go controller's).
var controllerAgents = []string{"deployment-controller", "deploysync-controller", "deploysync-reconciler"}

// agentFlavours maps a Deployment controller's agent to the load flavour
// it runs in.
var agentFlavours = map[string]string{"deployment-controller": kcmFlavour, "deploysync-controller": oursFlavour, "deploysync-reconciler": crFlavour}

// logAuditCosts prints, per flavour and Deployment controller, the
// requests by verb over the whole load and, per rollout (phases after
// create), writes and 409s as the apiserver saw them.
//
// With DEPLOYSYNC_E2E_AUDIT_KEEP=FILE it first copies the audit log to FILE
// (the log lives in the test's temporary directory), for a closer look at
// the requests (one JSON line each).
func logAuditCosts(t *testing.T, path string, phaseStarts []time.Time, flavours []string, rollouts int) {
	if keep := os.Getenv("DEPLOYSYNC_E2E_AUDIT_KEEP"); keep != "" {
		if data, err := os.ReadFile(path); err != nil {
			t.Errorf("audit log: %v", err)
		} else if err := os.WriteFile(keep, data, 0o644); err != nil {
			t.Errorf("keeping the audit log: %v", err)
		} else {
			t.Logf("audit log copied to %s (DEPLOYSYNC_E2E_AUDIT_KEEP)", keep)
		}
	}
	costs, err := readAuditCosts(path, phaseStarts, flavours)
	if err != nil {
		t.Errorf("audit log: %v", err)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "apiserver's audit log, Deployment controllers' requests (all phases; injected faults never reach the apiserver):\n")
	fmt.Fprintf(&b, "| flavour | agent | requests by verb and resource | by response code | writes/rollout | 409s/rollout |\n|---|---|---|---|---|---|\n")
	for _, fl := range flavours {
		for _, agent := range controllerAgents {
			total := auditCost{byVerb: map[string]int{}, byCode: map[int]int{}}
			for p, ph := range costs {
				c := ph[fl][agent]
				if c == nil {
					continue
				}
				for k, v := range c.byVerb {
					total.byVerb[k] += v
				}
				for k, v := range c.byCode {
					total.byCode[k] += v
				}
				if p > 0 {
					total.writes += c.writes
					total.conflicts += c.conflicts
				}
			}
			if len(total.byVerb) == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f | %.3f |\n", fl, agent, joinCounts(total.byVerb, "%v %d"), joinCounts(total.byCode, "%v: %d"),
				float64(total.writes)/float64(rollouts), float64(total.conflicts)/float64(rollouts))
		}
	}
	t.Log(b.String())
}

// joinCounts lists a table of counts in its keys' order, each entry as
// format has it (given the key and the count), separated by commas.
func joinCounts[K cmp.Ordered](counts map[K]int, format string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, fmt.Sprintf(format, k, counts[k]))
	}
	return strings.Join(out, ", ")
}
