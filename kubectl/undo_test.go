package kubectl_test

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/kubectl"
)

func TestUndo(t *testing.T) {
	history := func() []*appsv1.ReplicaSet {
		return []*appsv1.ReplicaSet{owned("a", "nginx:1", "1", "one", 0), owned("b", "nginx:2", "2", "", 1), owned("c", "nginx:3", "3", "", 2)}
	}
	const patch2 = `[{"op":"replace","path":"/spec/template","value":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:2","resources":{}}]}}},` +
		`{"op":"replace","path":"/metadata/annotations","value":{"deployment.kubernetes.io/revision":"3","team":"red"}}]`
	tests := []struct {
		name      string
		d         *appsv1.Deployment
		rss       []*appsv1.ReplicaSet
		to        int64
		wantPatch string
		wantKind  error
		wantErr   string
		reason    string
	}{
		{name: "previous", d: webDeployment("nginx:3"), rss: history(), to: 0, wantPatch: patch2,
			reason: "0 means the second highest revision; hash label dropped, team taken from the ReplicaSet, revision kept"},
		{name: "explicit", d: webDeployment("nginx:3"), rss: history(), to: 2, wantPatch: patch2, reason: "revision 2 is b"},
		{name: "change-cause copied", d: webDeployment("nginx:3"), rss: history(), to: 1,
			wantPatch: `[{"op":"replace","path":"/spec/template","value":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1","resources":{}}]}}},` +
				`{"op":"replace","path":"/metadata/annotations","value":{"deployment.kubernetes.io/revision":"3","kubernetes.io/change-cause":"one","team":"red"}}]`,
			reason: "every annotation of the ReplicaSet but the controller's goes to the Deployment"},
		{name: "not found", d: webDeployment("nginx:3"), rss: history(), to: 7, wantKind: kubectl.ErrUndoRevisionNotFound,
			wantErr: "unable to find specified revision 7 in history", reason: "no ReplicaSet has revision 7"},
		{name: "negative", d: webDeployment("nginx:3"), rss: history(), to: -1, wantKind: kubectl.ErrUndoRevisionNotFound,
			wantErr: "unable to find specified revision -1 in history", reason: "kubectl refuses negative revisions first"},
		{name: "no previous", d: webDeployment("nginx:3"), rss: history()[2:], to: 0, wantKind: kubectl.ErrUndoNoPrevious,
			wantErr: `no rollout history found for deployment "web"`, reason: "a single revision has no previous one"},
		{name: "paused", d: paused(webDeployment("nginx:3")), rss: history(), to: 1, wantKind: kubectl.ErrUndoPaused,
			wantErr: "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again",
			reason:  "kubectl refuses to roll back a paused Deployment"},
		{name: "paused but not found", d: paused(webDeployment("nginx:3")), rss: history(), to: 9, wantKind: kubectl.ErrUndoRevisionNotFound,
			wantErr: "unable to find specified revision 9 in history", reason: "the revision is looked up before the pause is checked"},
		{name: "unchanged", d: webDeployment("nginx:3"), rss: history(), to: 3, wantKind: kubectl.ErrUndoUnchanged,
			wantErr: "skipped rollback (current template already matches revision 3)", reason: "revision 3 is the running template"},
		{name: "unchanged previous", d: webDeployment("nginx:2"), rss: history(), to: 0, wantKind: kubectl.ErrUndoUnchanged,
			wantErr: "skipped rollback (current template already matches revision 0)", reason: "kubectl names the revision as asked: 0"},
		{name: "tie at the top", d: webDeployment("nginx:3"), rss: append(history(), owned("d", "nginx:4", "3", "", 3)), to: 0,
			wantKind: kubectl.ErrUndoUnchanged, wantErr: "skipped rollback (current template already matches revision 0)",
			reason: "the second ReplicaSet with the highest revision counts as the previous one (here c, which is running)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.d, tt.rss)
			got, err := kubectl.Undo(tt.d, tt.rss, tt.to)
			frozen.Check(t)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, tt.wantKind) {
					t.Errorf("Undo error = %v, want %q (%s)", err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Undo: %v (%s)", err, tt.reason)
			}
			if string(got.Patch) != tt.wantPatch || got.Type != types.JSONPatchType || got.Why == "" {
				t.Errorf("patch %s %s\nwant %s (%s)", got.Type, got.Patch, tt.wantPatch, tt.reason)
			}
			after, err := got.ApplyTo(tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if after.Spec.Template.Spec.Containers[0].Image == tt.d.Spec.Template.Spec.Containers[0].Image ||
				after.Annotations[deployutil.RevisionAnnotation] != tt.d.Annotations[deployutil.RevisionAnnotation] {
				t.Errorf("after the patch: %+v", after)
			}
		})
	}
}

func paused(d *appsv1.Deployment) *appsv1.Deployment {
	d.Spec.Paused = true
	return d
}
