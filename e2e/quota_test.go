package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/diagnose"
)

// A full quota on ReplicaSets, as a namespace with count/replicasets.apps
// set to what it holds is: the apiserver's ResourceQuota admission plugin
// refuses the Deployment controller's create of the new ReplicaSet
// ("exceeded quota"), and raising the quota lets the next create through.
// The quota's status (hard and used), which the admission plugin judges a
// create by, is written by kube-controller-manager's ResourceQuota
// controller (startQuotaController) as in a cluster; the plugin counts an
// admitted create into it itself.

const rsQuotaName = "replicasets"

var rsQuotaResource = corev1.ResourceName("count/replicasets.apps")

// fillReplicaSetQuota creates in ns a quota of as many ReplicaSets as ns
// holds and returns once the apiserver refuses another (a dry-run create
// of a ReplicaSet is refused): the quota controller has counted them.
func fillReplicaSetQuota(t *testing.T, ctx context.Context, client kubernetes.Interface, ns string) {
	t.Helper()
	rsl, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing the ReplicaSets of %s: %v", ns, err)
	}
	n := *resource.NewQuantity(int64(len(rsl.Items)), resource.DecimalSI)
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: rsQuotaName, Namespace: ns},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{rsQuotaResource: n}}}
	if _, err := client.CoreV1().ResourceQuotas(ns).Create(ctx, q, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the ReplicaSet quota: %v", err)
	}
	start := time.Now()
	if err := waitRSAdmission(ctx, client, ns, false); err != nil {
		t.Fatalf("the full ReplicaSet quota: %v", err)
	}
	q, err = client.CoreV1().ResourceQuotas(ns).Get(ctx, rsQuotaName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the ReplicaSet quota: %v", err)
	}
	used := q.Status.Used[rsQuotaResource]
	t.Logf("the apiserver refuses another ReplicaSet in %s %v after the quota's create: hard %s, used %s (the quota controller's count)",
		ns, time.Since(start).Round(time.Millisecond), n.String(), used.String())
}

// raiseReplicaSetQuota raises the quota's spec by one ReplicaSet and
// returns when the apiserver admits a ReplicaSet again (the quota
// controller has written the new hard limit into the status).
func raiseReplicaSetQuota(ctx context.Context, client kubernetes.Interface, ns string) error {
	for {
		q, err := client.CoreV1().ResourceQuotas(ns).Get(ctx, rsQuotaName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		hard := q.Spec.Hard[rsQuotaResource]
		hard.Add(*resource.NewQuantity(1, resource.DecimalSI))
		q.Spec.Hard[rsQuotaResource] = hard
		_, err = client.CoreV1().ResourceQuotas(ns).Update(ctx, q, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			return err
		}
		return waitRSAdmission(ctx, client, ns, true)
	}
}

// waitRSAdmission waits, for at most a minute, until a dry-run create of a
// ReplicaSet in ns is admitted (admit) or refused by the quota (!admit): the
// admission plugin reads quotas through an informer.
func waitRSAdmission(ctx context.Context, client kubernetes.Interface, ns string, admit bool) error {
	probe := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "quota-probe", Namespace: ns},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"probe": "quota"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"probe": "quota"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "probe"}}}}}}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := client.AppsV1().ReplicaSets(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		refused := apierrors.IsForbidden(err) && strings.Contains(err.Error(), "exceeded quota")
		switch {
		case admit && err == nil, !admit && refused:
			return nil
		case err != nil && !refused:
			return err
		case time.Now().After(deadline):
			return context.DeadlineExceeded
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// quotaLift raises the full quota at a time, in the background, and keeps
// what the cluster said before: the apiserver's error as the Deployment's
// Progressing condition carries it.
type quotaLift struct {
	done chan struct{}
	// unblock is what diagnose.Rollout said of the live state just
	// before the raise (its ReplicaSetCreateFailed cause), "" if it named
	// no such cause.
	unblock string
	// message is the refused create's error, from the condition's message
	// ("Failed to create new replica set NAME: ERROR"); admitted, how long
	// after the raise the apiserver admitted a ReplicaSet again.
	message  string
	admitted time.Duration
	err      error
}

// diagnoseCreateFailed runs diagnose.Rollout on the live state of d's
// namespace and returns its ReplicaSetCreateFailed cause's unblock.
func diagnoseCreateFailed(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment) (string, error) {
	return diagnoseLive(ctx, client, d, diagnose.ReplicaSetCreateFailed)
}

// diagnoseLive runs diagnose.Rollout on the live state of d's namespace
// (its ReplicaSets and pods as the apiserver lists them, now) and returns
// the unblock of its cause of kind k, "" if it names none.
func diagnoseLive(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, k diagnose.Kind) (string, error) {
	rsl, err := client.AppsV1().ReplicaSets(d.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	pods, err := client.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	s := deploysync.State{Deployment: d, Now: time.Now()}
	for i := range rsl.Items {
		s.ReplicaSets = append(s.ReplicaSets, &rsl.Items[i])
	}
	s.Pods = map[types.UID][]*corev1.Pod{}
	for i := range pods.Items {
		if ref := metav1.GetControllerOfNoCopy(&pods.Items[i]); ref != nil {
			s.Pods[ref.UID] = append(s.Pods[ref.UID], &pods.Items[i])
		}
	}
	causes, err := diagnose.Rollout(s)
	if err != nil {
		return "", err
	}
	for _, c := range causes {
		if c.Kind == k {
			return c.Unblock, nil
		}
	}
	return "", nil
}

// nextRetry reads the time a ReplicaSetCreateFailed unblock names for the
// controller's next retry; false when it names none (it stopped retrying).
func nextRetry(unblock string) (time.Time, bool) {
	m := nextRetryRE.FindStringSubmatch(unblock)
	if m == nil {
		return time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339, m[1])
	return at, err == nil
}

var nextRetryRE = regexp.MustCompile(`next at about (\S+) \(`)

func startQuotaLift(ctx context.Context, client kubernetes.Interface, ns string, at time.Time) *quotaLift {
	l := &quotaLift{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		time.Sleep(time.Until(at))
		d, err := client.AppsV1().Deployments(ns).Get(ctx, dName, metav1.GetOptions{})
		if err != nil {
			l.err = err
			return
		}
		if c := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing); c != nil && c.Reason == deployutil.ReasonReplicaSetCreateError {
			if _, msg, ok := strings.Cut(c.Message, `": `); ok {
				l.message = msg
			}
		}
		if l.unblock, l.err = diagnoseCreateFailed(ctx, client, d); l.err != nil {
			return
		}
		start := time.Now()
		l.err = raiseReplicaSetQuota(ctx, client, ns)
		l.admitted = time.Since(start)
	}()
	return l
}
