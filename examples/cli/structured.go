package cli

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/kubectl"
	"github.com/deploysync/deploysync/simulate"
)

// jsonHistory is history's machine-readable form: the revisions kubectl
// rollout history lists, ascending.
type jsonHistory struct {
	Deployment string         `json:"deployment"`
	Revisions  []jsonRevision `json:"revisions"`
}

// jsonRevision is one row of kubectl rollout history.
type jsonRevision struct {
	Revision int64 `json:"revision"`
	// ChangeCause is empty where kubectl prints <none>.
	ChangeCause string `json:"changeCause,omitempty"`
	// ReplicaSet is the ReplicaSet that holds the revision.
	ReplicaSet string `json:"replicaSet"`
}

func historyJSON(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (jsonHistory, error) {
	entries, err := kubectl.History(d, rss)
	if err != nil {
		return jsonHistory{}, err
	}
	out := jsonHistory{Deployment: d.Namespace + "/" + d.Name, Revisions: []jsonRevision{}}
	for _, e := range entries {
		r := jsonRevision{Revision: e.Revision, ChangeCause: e.ChangeCause}
		if e.ReplicaSet != nil {
			r.ReplicaSet = e.ReplicaSet.Name
		}
		out.Revisions = append(out.Revisions, r)
	}
	return out, nil
}

// jsonTimeline is simulate's machine-readable form: the run's outcome and
// summary numbers, then every step with its actions and reasons.
type jsonTimeline struct {
	Deployment string `json:"deployment"`
	Strategy   string `json:"strategy"`
	Start      string `json:"start"`
	Outcome    string `json:"outcome"`
	// Why says why a rollout that did not complete ended as it did.
	Why          string   `json:"why,omitempty"`
	Syncs        int      `json:"syncs"`
	Duration     string   `json:"duration"`
	PeakPods     int32    `json:"peakPods"`
	PeakWithTerm int32    `json:"peakPodsWithTerminating"`
	MinAvailable int32    `json:"minAvailable"`
	Violations   []string `json:"violations,omitempty"`
	// InputBroken are the invariants the input already broke.
	InputBroken []string `json:"inputBroken,omitempty"`
	// CacheOrders sums up the runs of --cache-orders.
	CacheOrders *cacheSpread `json:"cacheOrders,omitempty"`
	Steps       []jsonStep   `json:"steps"`
}

// jsonStep is one step of a simulation.
type jsonStep struct {
	Index        int               `json:"index"`
	Elapsed      string            `json:"elapsed"`
	Changes      []string          `json:"changes,omitempty"`
	Branch       deploysync.Branch `json:"branch"`
	Actions      []jsonStepAction  `json:"actions,omitempty"`
	Why          string            `json:"why,omitempty"`
	Requeue      bool              `json:"requeue,omitempty"`
	RequeueAfter string            `json:"requeueAfter,omitempty"`
	RequeueWhy   string            `json:"requeueWhy,omitempty"`
	Error        string            `json:"error,omitempty"`
	// RetryAfter, Failures and Dropped: for a failed sync, when the
	// workqueue retries it and how many failed in a row, or that the
	// controller gave up on the Deployment (simulate.Step).
	RetryAfter  string              `json:"retryAfter,omitempty"`
	Failures    int                 `json:"failures,omitempty"`
	Dropped     bool                `json:"dropped,omitempty"`
	Replicas    int32               `json:"replicas"`
	ReplicaSets []jsonReplicaSetRow `json:"replicaSets"`
	Totals      jsonCounts          `json:"totals"`
	Deleted     []jsonDeletion      `json:"deleted,omitempty"`
	Refused     []jsonRefusal       `json:"refused,omitempty"`
	Admitted    []jsonAdmission     `json:"admitted,omitempty"`
}

// jsonAdmission is a ReplicaSet whose pods the apiserver admits again
// after a refusal that ended (simulate.Step.Admitted): kind
// "PodsAdmitted", the pods created, the retry that made them, when the
// refusal ended and the failed syncs before.
type jsonAdmission struct {
	Kind       string `json:"kind"`
	ReplicaSet string `json:"replicaSet"`
	Created    int32  `json:"created"`
	At         string `json:"at"`
	Until      string `json:"until"`
	Failures   int    `json:"failures"`
	// Refused: the creates of that sync a pod quota refused past its room.
	Refused int32 `json:"refused,omitempty"`
}

// jsonRefusal is a ReplicaSet whose pods the apiserver first refused as
// the world moved to the step (simulate.Step.Refused): kind
// "PodsRefused", how many pods it is short, the apiserver's error.
type jsonRefusal struct {
	Kind       string `json:"kind"`
	ReplicaSet string `json:"replicaSet"`
	Missing    int32  `json:"missing"`
	// Created: the pods the sync made before the refusal (a pod quota's
	// room).
	Created int32  `json:"created,omitempty"`
	Message string `json:"message"`
}

// jsonDeletion is a pod the ReplicaSet controller deleted as the world
// moved to the step (simulate.Step.Deleted), in the vocabulary of the
// actions: its kind ("PodDeleted") and its text (what ranked it first),
// with the ReplicaSet, the pod, its node and its place in the deletion
// order.
type jsonDeletion struct {
	Kind       string `json:"kind"`
	ReplicaSet string `json:"replicaSet"`
	Pod        string `json:"pod"`
	Node       string `json:"node,omitempty"`
	Position   int    `json:"position"`
	// Tied is simulate.Deletion.Tied: kept pods upstream's order cannot
	// tell from this one.
	Tied int `json:"tied,omitempty"`
	// Unsettled is simulate.Deletion.Unsettled: kept pods, not tied with
	// this one, upstream's comparison does not put after it.
	Unsettled int    `json:"unsettled,omitempty"`
	Text      string `json:"text"`
}

// jsonStepAction is an action of a step in the vocabulary of plan -o json
// (the library's action JSON): its kind, its reasons as data (rule, values,
// text) and its text; without the objects, which plan -o json carries.
type jsonStepAction struct {
	Kind string          `json:"kind"`
	Why  json.RawMessage `json:"why"`
	Text string          `json:"text"`
}

// stepAction is the action's library JSON cut to kind, why and text.
func stepAction(a action.Action) jsonStepAction {
	var full jsonStepAction
	b, err := json.Marshal(a)
	if err != nil || json.Unmarshal(b, &full) != nil || full.Kind == "" {
		// Every action marshals (action's json.go); keep the words if not.
		return jsonStepAction{Kind: fmt.Sprintf("%T", a)[len("*action."):], Why: json.RawMessage("[]"), Text: a.String()}
	}
	return full
}

// jsonReplicaSetRow is one ReplicaSet at a step.
type jsonReplicaSetRow struct {
	Name     string     `json:"name"`
	Revision string     `json:"revision,omitempty"`
	New      bool       `json:"new,omitempty"`
	Replicas int32      `json:"replicas"`
	Pods     jsonCounts `json:"pods"`
}

func timelineJSON(tl *simulate.Timeline, why string) jsonTimeline {
	peak, peakTerm := tl.PeakPods()
	minAvail, _ := tl.MinAvailable()
	out := jsonTimeline{Deployment: tl.Deployment, Strategy: tl.Strategy, Start: tl.Start.UTC().Format("2006-01-02T15:04:05Z07:00"),
		Outcome: string(tl.Outcome), Why: why, Syncs: tl.Syncs(), Duration: tl.Duration().String(),
		PeakPods: peak, PeakWithTerm: peakTerm, MinAvailable: minAvail, Steps: []jsonStep{}}
	for i := range tl.Violations {
		out.Violations = append(out.Violations, tl.Violations[i].Error())
	}
	for i := range tl.InputBroken {
		out.InputBroken = append(out.InputBroken, tl.InputBroken[i].Error())
	}
	for _, s := range tl.Steps {
		js := jsonStep{Index: s.Index, Elapsed: s.Elapsed.String(), Changes: s.Changes, Branch: s.Branch, Why: s.Why.String(),
			Requeue: s.Requeue, RequeueWhy: s.RequeueWhy,
			Replicas: s.Replicas, Totals: countsJSON(s.Totals), ReplicaSets: []jsonReplicaSetRow{}}
		if s.RequeueAfter > 0 {
			js.RequeueAfter = s.RequeueAfter.String()
		}
		if s.Err != nil {
			js.Error = s.Err.Error()
			js.Failures, js.Dropped = s.Failures, s.Dropped
			if s.RetryAfter > 0 {
				js.RetryAfter = s.RetryAfter.String()
			}
		}
		for _, a := range s.Actions {
			js.Actions = append(js.Actions, stepAction(a))
		}
		for _, d := range s.Deleted {
			js.Deleted = append(js.Deleted, jsonDeletion{Kind: "PodDeleted", ReplicaSet: d.ReplicaSet, Pod: d.Pod, Node: d.Node,
				Position: d.Position, Tied: d.Tied, Unsettled: d.Unsettled, Text: d.Why})
		}
		for _, r := range s.Refused {
			js.Refused = append(js.Refused, jsonRefusal{Kind: "PodsRefused", ReplicaSet: r.ReplicaSet, Missing: r.Missing, Created: r.Created, Message: r.Message})
		}
		for _, a := range s.Admitted {
			js.Admitted = append(js.Admitted, jsonAdmission{Kind: "PodsAdmitted", ReplicaSet: a.ReplicaSet, Created: a.Created,
				At: a.At.String(), Until: a.Until.String(), Failures: a.Failures, Refused: a.Refused})
		}
		for _, rs := range s.ReplicaSets {
			js.ReplicaSets = append(js.ReplicaSets, jsonReplicaSetRow{Name: rs.Name, Revision: rs.Revision, New: rs.New, Replicas: rs.Replicas, Pods: countsJSON(rs.Pods)})
		}
		out.Steps = append(out.Steps, js)
	}
	return out
}

// jsonCounts are pods by state (simulate.Counts).
type jsonCounts struct {
	Pods        int32 `json:"pods"`
	Ready       int32 `json:"ready"`
	Available   int32 `json:"available"`
	Terminating int32 `json:"terminating"`
}

func countsJSON(c simulate.Counts) jsonCounts {
	return jsonCounts{Pods: c.Pods, Ready: c.Ready, Available: c.Available, Terminating: c.Terminating}
}
