package cli

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/deploysync/deploysync"
)

// TestReadClusterEqualsFile puts the objects of each test file into a fake
// clientset and reads them back as the live mode does: the Manifest and
// the plan are the file's. (The e2e module does the same through the
// command against a real kube-apiserver.)
func TestReadClusterEqualsFile(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	for _, tt := range []struct{ file, reason string }{
		{"testdata/rollout.yaml", "a List mid-rollout: Deployment, one ReplicaSet, its pods"},
		{"testdata/recreate.yaml", "Recreate reads pods, including a terminating one"},
		{"testdata/stuck.yaml", "two ReplicaSets past the deadline"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			file, err := LoadManifest(tt.file, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var objs []runtime.Object
			objs = append(objs, file.Deployment.DeepCopy())
			for _, rs := range file.ReplicaSets {
				objs = append(objs, rs.DeepCopy())
			}
			for _, pods := range file.Pods {
				for _, p := range pods {
					objs = append(objs, p.DeepCopy())
				}
			}
			client := fake.NewClientset(objs...)
			live, err := ReadCluster(context.Background(), client, "the fake", ReadOptions{Namespace: file.Deployment.Namespace, Deployment: file.Deployment.Name})
			if err != nil {
				t.Fatal(err)
			}
			ignore := cmpopts.IgnoreFields(Manifest{}, "File", "sources", "Notes")
			if d := cmp.Diff(file, live, ignore, cmp.AllowUnexported(Manifest{}), cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("%s: the cluster's Manifest differs from the file's (-file +cluster):\n%s", tt.reason, d)
			}
			a, err := deploysync.Sync(file.State(now))
			if err != nil {
				t.Fatal(err)
			}
			b, err := deploysync.Sync(live.State(now))
			if err != nil {
				t.Fatal(err)
			}
			if a.String() != b.String() {
				t.Errorf("%s: plans differ:\nfile:\n%s\ncluster:\n%s", tt.reason, a, b)
			}
		})
	}
}

func TestDeploymentArg(t *testing.T) {
	for _, tt := range []struct {
		arg, want, reason string
		bad               bool
	}{
		{arg: "web", want: "web", reason: "a bare name, as kubectl rollout status web would not take but users type"},
		{arg: "deploy/web", want: "web", reason: "kubectl's short form"},
		{arg: "deployment.apps/web", want: "web", reason: "the fully qualified form kubectl prints"},
		{arg: "Deployments/web", want: "web", reason: "kinds are case-insensitive, plural allowed"},
		{arg: "rs/web-1", bad: true, reason: "a ReplicaSet is not a Deployment"},
		{arg: "deploy/", bad: true, reason: "no name"},
		{arg: "deploy/a/b", bad: true, reason: "a name has no slash"},
	} {
		got, err := deploymentArg(tt.arg)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("deploymentArg(%q) = %q, %v; want %q, error %v (%s)", tt.arg, got, err, tt.want, tt.bad, tt.reason)
		}
	}
}
