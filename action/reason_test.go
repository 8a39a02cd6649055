package action_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"
)

// TestReasonString checks the rendering of reasons: a rule's sentence with
// its values, the rules rendered field by field, and the fallbacks.
func TestReasonString(t *testing.T) {
	tests := []struct {
		name   string
		r      action.Reason
		want   string
		reason string
	}{
		{name: "sentence", r: action.Because(action.RuleRecreateScaleDownOld, action.Str("replicaSet", "web-1"), action.Num("from", 3)),
			want:   "scale down old ReplicaSet web-1 3→0: Recreate stops every old pod before starting new ones",
			reason: "the values fill the rule's sentence in order"},
		{name: "indexed", r: action.Because(action.RuleCleanup, action.Num("revisionHistoryLimit", 2), action.Num("exist", 3), action.Str("revision", "1")),
			want:   "revisionHistoryLimit 2 keeps 2 old ReplicaSets and 3 exist; this one (revision 1) is among the oldest and scaled to zero",
			reason: "a sentence may use a value twice (an explicit argument index); it takes each value once"},
		{name: "no values", r: action.Because(action.RuleStartTracking),
			want: "start tracking progress: there is a progress deadline and no Progressing condition yet", reason: "a fixed sentence"},
		{name: "status", r: action.Because(action.RuleStatus, action.Num("observedGeneration", 2),
			action.Num("replicas.from", 3), action.Num("replicas.to", 4), action.Str("terminatingReplicas.from", "-"), action.Num("terminatingReplicas.to", 0),
			action.Str("Available.status", "True"), action.Str("Available.reason", "MinimumReplicasAvailable"), action.Str("drop", "ReplicaFailure")),
			want:   "status: observe generation 2, replicas 3→4, terminatingReplicas -→0, Available=True (MinimumReplicasAvailable), drop ReplicaFailure",
			reason: "a status reason names each field that changes, with its old and new value"},
		{name: "status refresh", r: action.Because(action.RuleStatus), want: "refresh the status",
			reason: "a status write that changes no field the reason covers (a condition's time) refreshes the status"},
		{name: "sync new", r: action.Because(action.RuleSyncNewReplicaSet, action.Str("replicaSet", "web-2"),
			action.Num("minReadySeconds.from", 0), action.Num("minReadySeconds.to", 5), action.Str("revision.from", "none"), action.Str("revision.to", "3")),
			want:   "sync the new ReplicaSet web-2: minReadySeconds 0→5 as the Deployment's; revision none→3: it is the new ReplicaSet again",
			reason: "only what changes is said"},
		{name: "unknown rule", r: action.Because("Custom", action.Str("who", "me"), action.Num("n", 2)), want: "Custom who=me n=2",
			reason: "a rule this package does not define renders as its name and values"},
		{name: "missing value", r: action.Because(action.RuleObserveGeneration),
			want:   "ObserveGeneration [values (), want (generation): missing generation]",
			reason: "a known rule with the wrong values renders generically and says what is wrong, not with fmt's %!d(MISSING)"},
		{name: "renamed value", r: action.Because(action.RuleObserveGeneration, action.Num("gen", 2)),
			want:   "ObserveGeneration gen=2 [values (gen), want (generation): missing generation; extra gen]",
			reason: "the right number of values under the wrong names is no sentence either"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NotEmpty(t, tt.reason, "reason must be provided")
			assert.Equal(t, tt.want, tt.r.String(), tt.reason)
		})
	}
}

// TestReasonCheck checks that Check accepts the values a rule takes and
// names what is wrong with others.
func TestReasonCheck(t *testing.T) {
	tests := []struct {
		name   string
		r      action.Reason
		want   string // the error; "" for none
		reason string
	}{
		{name: "fits", r: action.Because(action.RuleRollbackUnchanged, action.Num("revision", 2), action.Str("replicaSet", "web-1")),
			reason: "the rule's names, in order, each of its kind"},
		{name: "order", r: action.Because(action.RuleRollbackUnchanged, action.Str("replicaSet", "web-1"), action.Num("revision", 2)),
			want:   "action: reason RollbackUnchanged: values (replicaSet, revision), want (revision, replicaSet): out of order",
			reason: "the sentence takes the values in the rule's order"},
		{name: "kind", r: action.Because(action.RuleRollbackUnchanged, action.Str("revision", "2"), action.Str("replicaSet", "web-1")),
			want:   "action: reason RollbackUnchanged: value revision is a text, want a number",
			reason: "a number the sentence prints with %d must be a number"},
		{name: "extra", r: action.Because(action.RuleClearRollback, action.Num("n", 1)),
			want:   "action: reason ClearRollback: values (n), want (): extra n",
			reason: "a rule without values takes none"},
		{name: "unknown", r: action.Because("Custom"), want: "action: reason Custom: unknown rule",
			reason: "a rule this package does not define"},
		{name: "status", r: action.Because(action.RuleStatus, action.Num("observedGeneration", 2),
			action.Num("replicas.from", 1), action.Num("replicas.to", 2), action.Str("terminatingReplicas.from", "-"), action.Num("terminatingReplicas.to", 0),
			action.Str("Foo.status", "True"), action.Str("Foo.reason", "Bar"), action.Str("drop", "ReplicaFailure")),
			reason: "a status reason: generation, counts in status order, conditions of any type, drops"},
		{name: "status refresh", r: action.Because(action.RuleStatus), reason: "a status write that only refreshes names nothing"},
		{name: "status order", r: action.Because(action.RuleStatus, action.Num("updatedReplicas.from", 1), action.Num("updatedReplicas.to", 2),
			action.Num("replicas.from", 1), action.Num("replicas.to", 2)),
			want:   "action: reason Status: value replicas.from (at 2) is no change a status reason names, or out of order",
			reason: "the counts come in status order"},
		{name: "status pair", r: action.Because(action.RuleStatus, action.Str("Available.status", "True"), action.Str("Progressing.reason", "X")),
			want:   "action: reason Status: value Available.status is not followed by Available.reason",
			reason: "a condition's status and reason go together"},
		{name: "status text count", r: action.Because(action.RuleStatus, action.Str("replicas.from", "-"), action.Num("replicas.to", 2)),
			want:   `action: reason Status: value replicas.from is the text "-", want a number`,
			reason: "only terminatingReplicas may be unset"},
		{name: "sync new", r: action.Because(action.RuleSyncNewReplicaSet, action.Str("replicaSet", "web-2"), action.Num("copyAnnotations", 1)),
			reason: "the ReplicaSet and one change"},
		{name: "sync new nothing", r: action.Because(action.RuleSyncNewReplicaSet, action.Str("replicaSet", "web-2")),
			want:   "action: reason SyncNewReplicaSet: no change: the reason names none",
			reason: "a sync of the new ReplicaSet changes something"},
		{name: "sync new order", r: action.Because(action.RuleSyncNewReplicaSet, action.Str("replicaSet", "web-2"), action.Num("copyAnnotations", 1),
			action.Str("revision.from", "1"), action.Str("revision.to", "2")),
			want:   "action: reason SyncNewReplicaSet: value revision.from (at 2) is no change the reason names, or out of order",
			reason: "the changes come in the documented order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NotEmpty(t, tt.reason, "reason must be provided")
			err := tt.r.Check()
			if tt.want == "" {
				assert.NoError(t, err, tt.reason)
				return
			}
			assert.EqualError(t, err, tt.want, tt.reason)
		})
	}
}

// TestReasonsString checks that several reasons read as one sentence.
func TestReasonsString(t *testing.T) {
	rs := action.Reasons{action.Because(action.RuleRollbackNothing), action.Because(action.RuleClearRollback)}
	assert.Equal(t, "nothing to roll back; clear the rollback annotation", rs.String())
	assert.Equal(t, "", action.Reasons(nil).String())
	assert.True(t, rs.Contains(action.Because(action.RuleClearRollback)))
	assert.False(t, rs.Contains(action.Because(action.RuleClearRollback, action.Num("n", 1))), "values count in equality")
}

// TestActionJSON checks the JSON form of an action: its kind, its object
// with apiVersion and kind, the reasons as data and the line.
func TestActionJSON(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1"}, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](0)}}
	a := &action.UpdateReplicaSet{ReplicaSet: rs, Why: action.Reasons{action.Because(action.RuleRecreateScaleDownOld,
		action.Str("replicaSet", "web-1"), action.Num("from", 3))}}
	b, err := json.Marshal(a)
	require.NoError(t, err)
	var got struct {
		Kind       string `json:"kind"`
		ReplicaSet struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		} `json:"replicaSet"`
		Why []struct {
			Rule   string         `json:"rule"`
			Values map[string]any `json:"values"`
			Text   string         `json:"text"`
		} `json:"why"`
		Text string `json:"text"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, "UpdateReplicaSet", got.Kind)
	assert.Equal(t, "apps/v1", got.ReplicaSet.APIVersion)
	assert.Equal(t, "ReplicaSet", got.ReplicaSet.Kind)
	require.Len(t, got.Why, 1)
	assert.Equal(t, "RecreateScaleDownOld", got.Why[0].Rule)
	assert.Equal(t, map[string]any{"replicaSet": "web-1", "from": 3.0}, got.Why[0].Values)
	assert.Equal(t, a.Explain(), got.Why[0].Text)
	assert.Equal(t, a.String(), got.Text)
	assert.Empty(t, rs.TypeMeta, "the action's object is not modified")

	e, err := json.Marshal(&action.Event{Type: "Normal", Reason: "ScalingReplicaSet", Message: "m"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"Event","type":"Normal","reason":"ScalingReplicaSet","message":"m","why":[],"text":"event Normal ScalingReplicaSet \"m\""}`, string(e),
		"an event keeps upstream's reason and message; no reasons are []")
}
