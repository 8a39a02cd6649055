package diagnose

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/deploysync/deploysync/action"
)

// Kind names one kind of thing that holds a rollout back. The values are
// stable, so tools may switch on them. Each constant's documentation says
// when [Rollout] reports it, then the names of its values, in order, for
// each of its sentences.
type Kind string

// The kinds of cause, in the order [Rollout] lists them (most important
// first).
const (
	// DeadlineExceeded: Progressing is False with reason
	// ProgressDeadlineExceeded (values progressDeadlineSeconds, since, ago,
	// message), or the next sync marks it so (values lastUpdate,
	// progressDeadlineSeconds, deadline, ago). Times are RFC 3339, ago a
	// Go duration.
	DeadlineExceeded Kind = "ProgressDeadlineExceeded"
	// ReplicaFailure: the ReplicaSet controller cannot create pods (quota,
	// admission, pod security): a ReplicaFailure condition of the
	// Deployment (values reason, message) or of a ReplicaSet (values
	// replicaSet, reason, message).
	ReplicaFailure Kind = "ReplicaFailure"
	// ReplicaSetCreateFailed: the apiserver refused the new ReplicaSet (a
	// full quota on count/replicasets.apps, an admission policy):
	// Progressing is False with reason ReplicaSetCreateError. Values:
	// since, ago, message. The unblock says when the controller retries,
	// or that it has stopped retrying (after 15 retries, about 2m44s after
	// the first failure, if nothing changed the Deployment since).
	ReplicaSetCreateFailed Kind = "ReplicaSetCreateFailed"
	// HashCollision: the new ReplicaSet's name is taken; the sync raises
	// status.collisionCount and creates nothing. Values: replicaSet,
	// collisionCount.
	HashCollision Kind = "HashCollision"
	// StaleDesiredReplicas: a desired-replicas annotation that no longer
	// matches spec.replicas sends every sync down the scaling branch
	// without changing anything (kubernetes#102551). Values: replicas,
	// stale (each such ReplicaSet with its annotation).
	StaleDesiredReplicas Kind = "StaleDesiredReplicas"
	// Paused: the Deployment is paused, so its template is not rolled out.
	// Values: replicaSet (the new ReplicaSet), or none when there is no new
	// ReplicaSet.
	Paused Kind = "Paused"
	// RecreateWaiting: a Recreate rollout waits until no old pod runs.
	// Values: reported (the old ReplicaSets' status.replicas), running,
	// terminating.
	RecreateWaiting Kind = "RecreateWaitingForOldPods"
	// NewPodsUnavailable: pods of the new ReplicaSet are not yet available
	// (not ready, or not ready for minReadySeconds). Values: available,
	// size, replicaSet, ready, and with minReadySeconds notYetAvailable,
	// minReadySeconds.
	NewPodsUnavailable Kind = "NewPodsUnavailable"
	// ScaleDownBlocked: old ReplicaSets may not shrink, because that would
	// leave fewer than replicas − maxUnavailable pods available. Values:
	// oldReplicas, available, minAvailable, replicas, maxUnavailable.
	ScaleDownBlocked Kind = "ScaleDownBlocked"
	// SurgeExhausted: the new ReplicaSet may not grow, because the
	// ReplicaSets already hold replicas + maxSurge pods. Values:
	// replicaSet, size, replicas, pods, maxSurge, maxPods.
	SurgeExhausted Kind = "SurgeExhausted"
	// SelectorOverlap: a ReplicaSet of another Deployment matches this
	// Deployment's selector. Values: replicaSet, deployment, selector.
	SelectorOverlap Kind = "SelectorOverlap"
	// OrphanAdoption: a ReplicaSet without a controller matches the
	// selector; the next sync adopts it. Values: replicaSet, size.
	OrphanAdoption Kind = "OrphanAdoption"
	// NextSync: nothing blocks; the controller has work to do on its next
	// sync (values action for one write; writes, actions for more), or
	// none and the cluster has to catch up (no values).
	NextSync Kind = "NextSync"
)

// sentences are the kinds' sentences, in the order of the kinds. A
// sentence names its values in braces; a cause takes the sentence whose
// names, in the order of their first use, are the names of its values.
var sentences = []struct {
	kind  Kind
	forms []string
}{
	{DeadlineExceeded, []string{
		"no progress for progressDeadlineSeconds ({progressDeadlineSeconds} s): Progressing is False since {since} ({ago} ago): {message}",
		"no progress since {lastUpdate}: the deadline of {progressDeadlineSeconds} s passed at {deadline}, {ago} ago",
	}},
	{ReplicaFailure, []string{
		"the ReplicaSet controller cannot create pods: {reason}: {message}",
		"ReplicaSet {replicaSet} cannot create pods: {reason}: {message}",
	}},
	{ReplicaSetCreateFailed, []string{
		"the apiserver refuses the new ReplicaSet: Progressing is False (ReplicaSetCreateError) since {since} ({ago} ago): {message}",
	}},
	{HashCollision, []string{
		"the new ReplicaSet's name {replicaSet} is taken by a ReplicaSet that is not this Deployment's with its template; collisionCount becomes {collisionCount}",
	}},
	{StaleDesiredReplicas, []string{
		"every sync is a scaling event that resizes nothing, so the rollout never runs: spec.replicas is {replicas} but {stale}",
	}},
	{Paused, []string{
		"the Deployment is paused: its pod template, in ReplicaSet {replicaSet}, is not rolled out",
		"the Deployment is paused: no ReplicaSet has its pod template, and none is created while paused",
	}},
	{RecreateWaiting, []string{
		"Recreate starts new pods only when no old one runs: old ReplicaSets report {reported} pods; of the old pods, {running} running, {terminating} terminating",
	}},
	{NewPodsUnavailable, []string{
		"{available} of {size} pods of the new ReplicaSet {replicaSet} are available ({ready} ready)",
		"{available} of {size} pods of the new ReplicaSet {replicaSet} are available ({ready} ready; {notYetAvailable} of them not yet ready for minReadySeconds {minReadySeconds} s)",
	}},
	{ScaleDownBlocked, []string{
		"old ReplicaSets keep {oldReplicas} replicas: {available} pods are available and at least {minAvailable} must stay so (replicas {replicas} − maxUnavailable {maxUnavailable}), so none may go",
	}},
	{SurgeExhausted, []string{
		"the new ReplicaSet {replicaSet} stays at {size} of {replicas}: the ReplicaSets hold {pods} pods and replicas {replicas} + maxSurge {maxSurge} = {maxPods} are allowed",
	}},
	{SelectorOverlap, []string{
		"ReplicaSet {replicaSet} of Deployment {deployment} matches this Deployment's selector {selector}",
	}},
	{OrphanAdoption, []string{
		"ReplicaSet {replicaSet} has no controller and matches the selector: the next sync adopts it with its {size} replicas",
	}},
	{NextSync, []string{
		"nothing blocks the rollout and the next sync writes nothing: the cluster has to catch up (pods starting or stopping, the ReplicaSet controller's status)",
		"the controller has not acted on this state yet; its next sync does 1 write: {action}",
		"the controller has not acted on this state yet; its next sync does {writes} writes: {actions}",
	}},
}

// Cause is one thing that holds a rollout back, as data.
type Cause struct {
	// Kind is the kind of cause.
	Kind Kind
	// Values are the cause's named values, in the order its sentence uses
	// them (see the kinds' documentation).
	Values []action.Value
	// Unblock says what would let the rollout go on.
	Unblock string
}

// Value returns the value called name and whether the cause has one.
func (c Cause) Value(name string) (action.Value, bool) {
	for _, v := range c.Values {
		if v.Name == name {
			return v, true
		}
	}
	return action.Value{}, false
}

// Message renders what holds the rollout back: the kind's sentence with
// the values. A cause whose value names fit none of its kind's sentences
// (built by hand with other values) renders as "%!KIND(name=value ...)",
// as fmt marks a bad verb, rather than as a sentence.
func (c Cause) Message() string {
	form, err := c.sentence()
	if err != nil {
		var b strings.Builder
		b.WriteString("%!" + string(c.Kind) + "(")
		for i, v := range c.Values {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(v.Name + "=" + v.String())
		}
		b.WriteByte(')')
		return b.String()
	}
	var b strings.Builder
	for form != "" {
		i := strings.IndexByte(form, '{')
		if i < 0 {
			b.WriteString(form)
			break
		}
		j := strings.IndexByte(form[i:], '}') + i // sentence checks the braces
		b.WriteString(form[:i])
		v, _ := c.Value(form[i+1 : j])
		b.WriteString(v.String())
		form = form[j+1:]
	}
	return b.String()
}

// String is "KIND: MESSAGE (UNBLOCK)".
func (c Cause) String() string {
	return fmt.Sprintf("%s: %s (%s)", c.Kind, c.Message(), c.Unblock)
}

// MarshalJSON writes the cause as an object in the vocabulary of
// action.Reason's: "kind", "values" (an object of the named values in the
// sentence's order, numbers as JSON numbers), "text" (Message) and
// "unblock".
func (c Cause) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`{"kind":`)
	writeJSONString(&b, string(c.Kind))
	b.WriteString(`,"values":{`)
	for i, v := range c.Values {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, v.Name)
		b.WriteByte(':')
		if v.IsText {
			writeJSONString(&b, v.Text)
		} else {
			b.WriteString(strconv.FormatInt(v.Int, 10))
		}
	}
	b.WriteString(`},"text":`)
	writeJSONString(&b, c.Message())
	b.WriteString(`,"unblock":`)
	writeJSONString(&b, c.Unblock)
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func writeJSONString(b *strings.Builder, s string) {
	q, _ := json.Marshal(s) // a string always marshals
	b.Write(q)
}

// sentence returns the sentence of c's kind that uses exactly c's value
// names in their order, or an error saying why there is none.
func (c Cause) sentence() (string, error) {
	forms := formsOf(c.Kind)
	if forms == nil {
		return "", fmt.Errorf("cause kind %q has no sentence", c.Kind)
	}
	have := make([]string, len(c.Values))
	for i, v := range c.Values {
		have[i] = v.Name
	}
	for _, f := range forms {
		names, err := sentenceNames(f)
		if err != nil {
			return "", fmt.Errorf("cause kind %s: %w", c.Kind, err)
		}
		if slices.Equal(names, have) {
			return f, nil
		}
	}
	return "", fmt.Errorf("cause %s has values %q, which fit none of its sentences", c.Kind, have)
}

func formsOf(k Kind) []string {
	for _, s := range sentences {
		if s.kind == k {
			return s.forms
		}
	}
	return nil
}

// sentenceNames returns the value names a sentence uses, in the order of
// their first use.
func sentenceNames(f string) ([]string, error) {
	var names []string
	for rest := f; ; {
		i := strings.IndexAny(rest, "{}")
		if i < 0 {
			return names, nil
		}
		if rest[i] == '}' {
			return nil, fmt.Errorf("sentence %q: a } without {", f)
		}
		j := strings.IndexAny(rest[i+1:], "{}")
		if j < 0 || rest[i+1+j] != '}' || j == 0 {
			return nil, fmt.Errorf("sentence %q: a { without its name and }", f)
		}
		if name := rest[i+1 : i+1+j]; !slices.Contains(names, name) {
			names = append(names, name)
		}
		rest = rest[i+2+j:]
	}
}
