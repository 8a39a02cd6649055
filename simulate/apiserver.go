package simulate

import (
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
)

// admit does the apiserver's share of a plan that Apply does not model, on
// the objects Apply made for the written ones (never on shared ones):
//
//   - a created ReplicaSet gets a UID derived from its name ("<name>-uid",
//     "<name>-uid-2" if the name was used before), the step's time as
//     creationTimestamp (whole seconds, as stored) and generation 1;
//   - an updated ReplicaSet whose spec changed gets generation + 1 (its
//     annotations do not count, as upstream's ReplicaSet strategy);
//   - a Deployment update (not a status update) that changes its spec or
//     annotations gets generation + 1;
//   - a Deployment status write keeps its conditions' times in whole
//     seconds, as an apiserver stores them, so the next sync (and the
//     progress deadline) reads what a real controller would read.
func (r *runner) admit(before, after deploysync.State, plan deploysync.Plan) {
	prev := make(map[string]*appsv1.ReplicaSet, len(before.ReplicaSets))
	for _, rs := range before.ReplicaSets {
		prev[rs.Name] = rs
	}
	for _, rs := range after.ReplicaSets {
		old, ok := prev[rs.Name]
		switch {
		case !ok:
			r.uids[rs.Name]++
			uid := rs.Name + "-uid"
			if n := r.uids[rs.Name]; n > 1 {
				uid += "-" + strconv.Itoa(n)
			}
			rs.UID = types.UID(uid)
			rs.CreationTimestamp = metav1.NewTime(r.start.Add(r.now).Truncate(time.Second))
			rs.Generation = 1
		case old != rs && !equality.Semantic.DeepEqual(old.Spec, rs.Spec):
			rs.Generation = old.Generation + 1
		}
	}
	for _, a := range plan.Actions {
		switch u := a.(type) {
		case *action.UpdateDeployment:
			d := before.Deployment
			if !equality.Semantic.DeepEqual(u.Deployment.Spec, d.Spec) || !equality.Semantic.DeepEqual(u.Deployment.Annotations, d.Annotations) {
				after.Deployment.Generation = d.Generation + 1
			}
		case *action.UpdateDeploymentStatus:
			// Apply copied the written status, so its conditions are
			// after's own.
			for i := range after.Deployment.Status.Conditions {
				c := &after.Deployment.Status.Conditions[i]
				c.LastUpdateTime = metav1.NewTime(c.LastUpdateTime.Truncate(time.Second))
				c.LastTransitionTime = metav1.NewTime(c.LastTransitionTime.Truncate(time.Second))
			}
		}
	}
}
