package action_test

import (
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
		&action.CreateReplicaSet{ReplicaSet: rs, Why: "no ReplicaSet matches the pod template"},
		&action.Event{Type: corev1.EventTypeNormal, Reason: "ScalingReplicaSet",
			Message: "Scaled up replica set web-6bcddfc897 from 0 to 3", Why: "the new ReplicaSet starts with replicas"},
		&action.DeleteReplicaSet{Namespace: "default", Name: "web-5d94f67bbb", Why: "past revisionHistoryLimit"},
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
	//   create replicaset web-6bcddfc897 replicas=3: no ReplicaSet matches the pod template
	// EVENT ScalingReplicaSet
	//   event Normal ScalingReplicaSet "Scaled up replica set web-6bcddfc897 from 0 to 3": the new ReplicaSet starts with replicas
	// DELETE replicasets web-5d94f67bbb
	//   delete replicaset web-5d94f67bbb: past revisionHistoryLimit
}
