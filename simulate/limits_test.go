package simulate_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/simulate"
)

// maxUpdatedAnnotation carries the limit in these scenarios, as the example
// controller reads it: kubectl annotate moves it.
const maxUpdatedAnnotation = "deploysync.dev/max-updated"

// syncWithAnnotatedLimit syncs with the limit the Deployment's annotation
// names (the zero Limits without one, so a hold ends as WithLimits says).
func syncWithAnnotatedLimit(s deploysync.State) (deploysync.Plan, error) {
	var l deploysync.Limits
	if v, ok := s.Deployment.Annotations[maxUpdatedAnnotation]; ok {
		x := intstr.Parse(v)
		l.MaxUpdated = &x
	}
	return deploysync.Sync(s, deploysync.WithLimits(l))
}

// annotateLimit sets the limit annotation at at, as
// `kubectl annotate --overwrite deploy/web deploysync.dev/max-updated=v` does.
func annotateLimit(at time.Duration, v string) simulate.Change {
	return simulate.Change{At: at, Description: "annotate " + maxUpdatedAnnotation + "=" + v, Edit: func(d *appsv1.Deployment) error {
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[maxUpdatedAnnotation] = v
		return nil
	}}
}

func limitScenarios() []scenario {
	limited := simulate.WithSyncFunc(syncWithAnnotatedLimit)
	return []scenario{
		{
			name:   "limit 30 percent held then raised",
			reason: "maxUpdated 30% of 10 is 3: the new ReplicaSet grows to 3, the old one shrinks to 7, the rollout holds (Progressing RolloutLimited) well past the 600s deadline; raised to 100% at 900s it resumes and completes",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts: []simulate.Option{limited, simulate.WithChanges(annotateLimit(0, "30%"), upgrade,
				annotateLimit(900*time.Second, "100%"))},
			want: simulate.Complete,
		},
		{
			name:   "limit 30 percent held",
			reason: "maxUpdated 30% with nothing after it: the run ends held at 3 updated of 10, all 10 available",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts:   []simulate.Option{limited, simulate.WithChanges(annotateLimit(0, "30%"), upgrade)},
			want:   simulate.Held,
		},
		{
			name:   "limit lowered mid-rollout",
			reason: "maxUpdated 80% (8 of 10) lowered to 20% at 20s, after the new ReplicaSet reached 8: the old ReplicaSet grows back within maxSurge, the new one shrinks within maxUnavailable to 2, and the rollout holds",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts: []simulate.Option{limited, simulate.WithChanges(annotateLimit(0, "80%"), upgrade,
				annotateLimit(20*time.Second, "20%"))},
			want: simulate.Held,
		},
		{
			name:   "scale during a limited rollout",
			reason: "held at maxUpdated 30% of 10 (3), scaled to 20 at 60s: proportional scaling as upstream, then the limit (6 of 20) brings both ReplicaSets to 6 and 14 and holds",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts: []simulate.Option{limited, simulate.WithChanges(annotateLimit(0, "30%"), upgrade,
				simulate.SetReplicas(60*time.Second, 20))},
			want: simulate.Held,
		},
		{
			name:   "limit held cleans history",
			reason: "revisionHistoryLimit 1: rolled to nginx:1.28 at 100%, then to nginx:1.29 at 60s under maxUpdated 30%; once held, the revision 1 ReplicaSet (0 replicas, one old ReplicaSet too many) is deleted, as upstream cleans up once complete",
			state: func(t testing.TB) deploysync.State {
				return steady(t, deployment(10, func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To[int32](1) }))
			},
			opts: []simulate.Option{limited, simulate.WithChanges(annotateLimit(0, "100%"), upgrade,
				annotateLimit(60*time.Second, "30%"), simulate.SetImage(60*time.Second, "web", "nginx:1.29"))},
			want: simulate.Held,
		},
	}
}
