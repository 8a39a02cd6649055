package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// fakeCluster puts the objects of a test file into a fake clientset.
func fakeCluster(t *testing.T, file string) (*fake.Clientset, *Manifest) {
	t.Helper()
	m, err := LoadManifest(file, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs := []runtime.Object{m.Deployment.DeepCopy()}
	for _, rs := range m.ReplicaSets {
		objs = append(objs, rs.DeepCopy())
	}
	for _, pods := range m.Pods {
		for _, p := range pods {
			objs = append(objs, p.DeepCopy())
		}
	}
	return fake.NewClientset(objs...), m
}

// statusAt returns the Deployment with its status counts set: spec.replicas
// 3, status.replicas r, updatedReplicas u, availableReplicas a.
func statusAt(d *appsv1.Deployment, r, u, a int32) *appsv1.Deployment {
	d = d.DeepCopy()
	d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = r, u, a, a
	d.Status.UnavailableReplicas = r - a
	return d
}

// deadlineExceeded returns d with Progressing False, ProgressDeadlineExceeded.
func deadlineExceeded(d *appsv1.Deployment) *appsv1.Deployment {
	d = d.DeepCopy()
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == appsv1.DeploymentProgressing {
			d.Status.Conditions[i].Status, d.Status.Conditions[i].Reason = corev1.ConditionFalse, "ProgressDeadlineExceeded"
			d.Status.Conditions[i].Message = `ReplicaSet "shop-7c5d9f8b6d" has timed out progressing.`
		}
	}
	return d
}

// TestWatch runs status --watch on a fake cluster whose Deployment status is
// rewritten between reads by a scripted sequence (each sleep writes the
// next state): a line is printed per changed verdict, none for a repeat,
// and the command stops with the rule's exit code at the first done or
// failed verdict. The expected lines are kubectl rollout status's messages
// for those counts (k8s.io/kubectl's DeploymentStatusViewer) and kstatus's.
func TestWatch(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []string
		states func(final *appsv1.Deployment) []*appsv1.Deployment
		want   string
		exit   int // 0: no error
		reason string
	}{
		{name: "kubectl until done", args: []string{"status", "deploy/shop", "-n", "store", "--watch"},
			states: func(d *appsv1.Deployment) []*appsv1.Deployment {
				return []*appsv1.Deployment{statusAt(d, 3, 1, 3), statusAt(d, 3, 1, 3), statusAt(d, 3, 3, 2), d}
			},
			want: `Waiting for deployment "shop" rollout to finish: 1 out of 3 new replicas have been updated...` + "\n" +
				`Waiting for deployment "shop" rollout to finish: 2 of 3 updated replicas are available...` + "\n" +
				`deployment "shop" successfully rolled out` + "\n",
			reason: "without --rule the lines are kubectl rollout status --watch's; the repeated state prints nothing; done is exit 0"},
		{name: "kstatus until failed", args: []string{"status", "deploy/shop", "-n", "store", "--watch", "--rule", "kstatus"},
			states: func(d *appsv1.Deployment) []*appsv1.Deployment {
				return []*appsv1.Deployment{statusAt(d, 3, 3, 2), deadlineExceeded(statusAt(d, 3, 3, 2)), d}
			},
			want:   "kstatus waiting (InProgress): Available: 2/3\nkstatus failed (Failed): Progress deadline exceeded\n",
			exit:   ExitDeadlineExceeded,
			reason: "--rule kstatus stops at Failed with exit 3, before the state after it is read"},
		{name: "json lines", args: []string{"status", "deploy/shop", "-n", "store", "--watch", "--rule", "argocd", "-o", "json"},
			states: func(d *appsv1.Deployment) []*appsv1.Deployment { return []*appsv1.Deployment{statusAt(d, 4, 3, 3), d} },
			want: `{"deployment":"store/shop","rule":"argocd","verdict":"waiting","status":"Progressing","message":"Waiting for rollout to finish: 1 old replicas are pending termination..."}` + "\n" +
				`{"deployment":"store/shop","rule":"argocd","verdict":"done","status":"Healthy"}` + "\n",
			reason: "-o json under --watch is one JSON object per changed verdict"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client, m := fakeCluster(t, "testdata/complete.yaml")
			states := tt.states(m.Deployment)
			ctx := context.Background()
			write := func(d *appsv1.Deployment) {
				if _, err := client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			write(states[0])
			next := 1
			g := &globals{clock: func() time.Time { panic("the clock is not read by status") }, client: client,
				sleep: func(ctx context.Context, d time.Duration) error {
					if d != 2*time.Second {
						t.Errorf("slept %s, want the default --interval 2s", d)
					}
					if next == len(states) {
						t.Fatalf("read again after the last state")
					}
					write(states[next])
					next++
					return nil
				}}
			var out, errOut bytes.Buffer
			cmd := newCommand(&out, &errOut, g)
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			var e *ExitError
			switch {
			case tt.exit == 0 && err != nil:
				t.Fatalf("error %v, want none (%s)", err, tt.reason)
			case tt.exit != 0 && (!errors.As(err, &e) || e.Code != tt.exit):
				t.Fatalf("error %v, want exit code %d (%s)", err, tt.exit, tt.reason)
			}
			if out.String() != tt.want {
				t.Errorf("%s\ngot:\n%s\nwant:\n%s", tt.reason, out.String(), tt.want)
			}
		})
	}
}

// TestWatchTimeout: when --timeout passes while the rule still waits, the
// exit code is ExitNotDone (1 without --rule, as kubectl) and the error
// gives the last verdict.
func TestWatchTimeout(t *testing.T) {
	for _, tt := range []struct {
		rule   []string
		exit   int
		header string // starts the verdict's text, printed once
		reason string
	}{
		{rule: []string{"--rule", "strict"}, exit: ExitNotDone, header: "strict waiting", reason: "a rule still waiting at --timeout is exit 8"},
		{exit: 1, header: "Waiting for deployment", reason: "without --rule, kubectl rollout status's timeout is exit 1"},
	} {
		client, m := fakeCluster(t, "testdata/complete.yaml")
		if _, err := client.AppsV1().Deployments("store").UpdateStatus(context.Background(), statusAt(m.Deployment, 3, 1, 3), metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		reads := 0
		g := &globals{client: client, sleep: func(ctx context.Context, d time.Duration) error {
			reads++
			if reads == 3 {
				return context.DeadlineExceeded
			}
			return nil
		}}
		var out, errOut bytes.Buffer
		cmd := newCommand(&out, &errOut, g)
		cmd.SetArgs(append([]string{"status", "shop", "-n", "store", "--watch", "--timeout", "1m"}, tt.rule...))
		err := cmd.Execute()
		var e *ExitError
		if !errors.As(err, &e) || e.Code != tt.exit || !strings.Contains(err.Error(), "timed out after 1m0s waiting for the rollout; last: ") {
			t.Errorf("error %v, want exit code %d and the last verdict (%s)", err, tt.exit, tt.reason)
		}
		if n := strings.Count(out.String(), tt.header); n != 1 || !strings.HasPrefix(out.String(), tt.header) {
			t.Errorf("%d verdicts printed for one unchanged verdict read 3 times, want 1:\n%s", n, out.String())
		}
	}
}

// TestReadClusterAllEqualsReadCluster: -A's one list per kind gives each
// Deployment the Manifest ReadCluster gives it alone, notes included, in
// the order of namespace and name.
func TestReadClusterAllEqualsReadCluster(t *testing.T) {
	var objs []runtime.Object
	for _, f := range []string{"testdata/complete.yaml", "testdata/stuck.yaml", "testdata/recreate.yaml", "testdata/midrollout.yaml"} {
		m, err := LoadManifest(f, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, m.Deployment)
		for _, rs := range m.ReplicaSets {
			objs = append(objs, rs)
		}
		for _, pods := range m.Pods {
			for _, p := range pods {
				objs = append(objs, p)
			}
		}
	}
	client := fake.NewClientset(objs...)
	ctx := context.Background()
	all, err := ReadClusterAll(ctx, client, "the fake", "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range all {
		names = append(names, m.Deployment.Namespace+"/"+m.Deployment.Name)
		one, err := ReadCluster(ctx, client, "the fake", ReadOptions{Namespace: m.Deployment.Namespace, Deployment: m.Deployment.Name})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(one, m, cmpopts.IgnoreFields(Manifest{}, "sources"), cmp.AllowUnexported(Manifest{}), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: -A's Manifest differs from ReadCluster's (-one +all):\n%s", names[len(names)-1], d)
		}
	}
	if got, want := strings.Join(names, " "), "news/feed shop/api shop/web store/shop"; got != want {
		t.Errorf("Deployments %s, want %s (every namespace, by namespace and name)", got, want)
	}
}

// TestWatchRetries: a read the apiserver fails with 503 is said once on
// stderr and read again at the next interval; a Deployment that does not
// exist ends the watch at once (no retry finds it).
func TestWatchRetries(t *testing.T) {
	client, _ := fakeCluster(t, "testdata/complete.yaml")
	failures := 2
	client.PrependReactor("get", "deployments", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failures > 0 {
			failures--
			return true, nil, apierrors.NewServiceUnavailable("the apiserver restarts")
		}
		return false, nil, nil
	})
	sleeps := 0
	g := &globals{client: client, sleep: func(context.Context, time.Duration) error { sleeps++; return nil }}
	var out, errOut bytes.Buffer
	cmd := newCommand(&out, &errOut, g)
	cmd.SetArgs([]string{"status", "deploy/shop", "-n", "store", "--watch", "--rule", "kstatus"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("error %v, want the done verdict after two failed reads", err)
	}
	if got, want := out.String(), "kstatus done (Current): Deployment is available. Replicas: 3\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if n := strings.Count(errOut.String(), "reading again in 2s: the test cluster: the apiserver restarts"); n != 1 || sleeps != 2 {
		t.Errorf("the same failure twice: said %d times (want 1), slept %d times (want 2); stderr:\n%s", n, sleeps, errOut.String())
	}

	cmd = newCommand(&out, &errOut, &globals{client: client, sleep: func(context.Context, time.Duration) error {
		t.Fatal("slept after a NotFound")
		return nil
	}})
	cmd.SetArgs([]string{"status", "deploy/gone", "-n", "store", "--watch"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), `deployments.apps "gone" not found`) {
		t.Errorf("error %v, want NotFound at once", err)
	}
}
