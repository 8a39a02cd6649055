package action_test

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"
)

// An applier walks a plan's actions in order and switches on their type;
// every action prints itself on one line with its reason.
func Example() {
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-6bcddfc897", Namespace: "default"},
		Spec:       appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](3)},
	}
	actions := []action.Action{
		&action.CreateReplicaSet{ReplicaSet: rs, Why: action.Reasons{action.Because(action.RuleCreateNew,
			action.Str("replicaSet", rs.Name), action.Str("hash", "6bcddfc897"), action.Num("revision", 2), action.Num("replicas", 3))}},
		&action.Event{Type: corev1.EventTypeNormal, Reason: "ScalingReplicaSet",
			Message: "Scaled up replica set web-6bcddfc897 from 0 to 3", Why: action.Reasons{action.Because(action.RuleNewStartsEvent)}},
		&action.DeleteReplicaSet{Namespace: "default", Name: "web-5d94f67bbb", Why: action.Reasons{action.Because(action.RuleCleanup,
			action.Num("revisionHistoryLimit", 1), action.Num("exist", 2), action.Str("revision", "1"))}},
	}
	for _, a := range actions {
		switch a := a.(type) {
		case *action.CreateReplicaSet:
			fmt.Println("POST replicasets", a.ReplicaSet.Name)
		case *action.DeleteReplicaSet:
			fmt.Println("DELETE replicasets", a.Name)
		case *action.Event:
			fmt.Println("EVENT", a.Reason)
		}
		fmt.Println(" ", a)
	}
	// Output:
	// POST replicasets web-6bcddfc897
	//   create replicaset web-6bcddfc897 replicas=3: no ReplicaSet matches the pod template; create web-6bcddfc897 (pod-template-hash 6bcddfc897, revision 2) with 3 replicas
	// EVENT ScalingReplicaSet
	//   event Normal ScalingReplicaSet "Scaled up replica set web-6bcddfc897 from 0 to 3": the new ReplicaSet starts with replicas
	// DELETE replicasets web-5d94f67bbb
	//   delete replicaset web-5d94f67bbb: revisionHistoryLimit 1 keeps 1 old ReplicaSets and 2 exist; this one (revision 1) is among the oldest and scaled to zero
}

// A reason is data: a rule and its named values. Tools read the values;
// people read the sentence.
func ExampleReason() {
	r := action.Because(action.RuleRollingScaleUpNew, action.Str("replicaSet", "web-2"), action.Num("from", 1), action.Num("to", 3),
		action.Num("maxSurge", 1), action.Num("maxPods", 4), action.Num("pods", 2))
	to, _ := r.Value("to")
	fmt.Println(r.Rule, to.Int)
	fmt.Println(r)
	j, _ := json.Marshal(r)
	fmt.Println(string(j))
	// Output:
	// RollingScaleUpNew 3
	// scale up new ReplicaSet web-2 1→3: maxSurge 1 allows 4 pods, 2 exist
	// {"rule":"RollingScaleUpNew","values":{"replicaSet":"web-2","from":1,"to":3,"maxSurge":1,"maxPods":4,"pods":2},"text":"scale up new ReplicaSet web-2 1→3: maxSurge 1 allows 4 pods, 2 exist"}
}

// A reason built with values its rule does not take is caught by Check,
// and its text says so rather than fill the sentence with the wrong
// numbers.
func ExampleReason_Check() {
	r := action.Because(action.RuleRollbackUnchanged, action.Num("rev", 2), action.Str("replicaSet", "web-1"))
	fmt.Println(r.Check())
	fmt.Println(r)
	// Output:
	// action: reason RollbackUnchanged: values (rev, replicaSet), want (revision, replicaSet): missing revision; extra rev
	// RollbackUnchanged rev=2 replicaSet=web-1 [values (rev, replicaSet), want (revision, replicaSet): missing revision; extra rev]
}
