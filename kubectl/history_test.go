package kubectl_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/kubectl"
)

// webDeployment is "web" (UID web-uid, selector app=web) running image.
func webDeployment(image string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "web-uid",
			Annotations: map[string]string{deployutil.RevisionAnnotation: "3", "team": "blue"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: podTemplate(image, ""),
		},
	}
}

func podTemplate(image, hash string) corev1.PodTemplateSpec {
	labels := map[string]string{"app": "web"}
	if hash != "" {
		labels[deployutil.PodTemplateHashLabel] = hash
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
	}
}

// owned is a ReplicaSet of web with the image, revision ("" for none) and
// change-cause ("" for none), created age minutes after epoch.
func owned(name, image, rev, cause string, age int) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			Labels:            map[string]string{"app": "web", deployutil.PodTemplateHashLabel: name},
			CreationTimestamp: metav1.NewTime(testutil.Epoch().Add(time.Duration(age) * time.Minute)),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "web-uid",
				Controller: ptr.To(true)}},
			Annotations: map[string]string{"team": "red"}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](0), Template: podTemplate(image, name)},
	}
	if rev != "" {
		rs.Annotations[deployutil.RevisionAnnotation] = rev
	}
	if cause != "" {
		rs.Annotations[deployutil.ChangeCauseAnnotation] = cause
	}
	return rs
}

func mutate(rs *appsv1.ReplicaSet, f func(*appsv1.ReplicaSet)) *appsv1.ReplicaSet {
	f(rs)
	return rs
}

type row struct {
	Rev   int64
	Cause string
	RS    string
}

func TestHistory(t *testing.T) {
	tests := []struct {
		name   string
		rss    []*appsv1.ReplicaSet
		want   []row
		reason string
	}{
		{name: "ascending", rss: []*appsv1.ReplicaSet{owned("c", "nginx:3", "3", "v3", 2), owned("a", "nginx:1", "1", "v1", 0), owned("b", "nginx:2", "2", "", 1)},
			want:   []row{{1, "v1", "a"}, {2, "", "b"}, {3, "v3", "c"}},
			reason: "kubectl sorts by revision; a missing change-cause is empty"},
		{name: "not controlled", rss: []*appsv1.ReplicaSet{owned("a", "nginx:1", "1", "", 0),
			mutate(owned("b", "nginx:2", "2", "", 1), func(rs *appsv1.ReplicaSet) { rs.OwnerReferences = nil }),
			mutate(owned("c", "nginx:2", "4", "", 1), func(rs *appsv1.ReplicaSet) { rs.OwnerReferences[0].Controller = nil })},
			want:   []row{{1, "", "a"}},
			reason: "kubectl only lists ReplicaSets whose controller is the Deployment, and never adopts"},
		{name: "not selected", rss: []*appsv1.ReplicaSet{owned("a", "nginx:1", "1", "", 0),
			mutate(owned("b", "nginx:2", "2", "", 1), func(rs *appsv1.ReplicaSet) { rs.Labels = map[string]string{"app": "other"} }),
			mutate(owned("c", "nginx:2", "4", "", 1), func(rs *appsv1.ReplicaSet) { rs.Namespace = "other" })},
			want:   []row{{1, "", "a"}},
			reason: "kubectl lists with the Deployment's selector, in its namespace"},
		{name: "unparseable and missing", rss: []*appsv1.ReplicaSet{owned("a", "nginx:1", "", "none", 0), owned("b", "nginx:2", "x", "", 1)},
			want:   []row{{0, "none", "a"}},
			reason: "a missing revision is 0; one that does not parse is left out"},
		{name: "duplicate revision: new one wins", rss: []*appsv1.ReplicaSet{owned("n", "nginx:3", "2", "new", 0), owned("o", "nginx:1", "2", "old", 5)},
			want:   []row{{2, "new", "n"}},
			reason: "kubectl's order puts the new ReplicaSet (template of the Deployment) last, so it wins even though older"},
		{name: "duplicate revision: later old one wins", rss: []*appsv1.ReplicaSet{owned("p", "nginx:2", "2", "second", 5), owned("o", "nginx:1", "2", "first", 0)},
			want:   []row{{2, "second", "p"}},
			reason: "old ReplicaSets are in creation order; the later overwrites"},
		{name: "template change-cause", rss: []*appsv1.ReplicaSet{
			mutate(owned("a", "nginx:1", "1", "", 0), func(rs *appsv1.ReplicaSet) {
				rs.Spec.Template.Annotations = map[string]string{deployutil.ChangeCauseAnnotation: "from template"}
			}),
			mutate(owned("b", "nginx:2", "2", "from rs", 1), func(rs *appsv1.ReplicaSet) {
				rs.Spec.Template.Annotations = map[string]string{deployutil.ChangeCauseAnnotation: "from template"}
			})},
			want:   []row{{1, "from template", "a"}, {2, "from rs", "b"}},
			reason: "kubectl writes the ReplicaSet's change-cause into the template's annotations, only when not empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := webDeployment("nginx:3")
			frozen := testutil.Freeze(t, d, tt.rss)
			got, err := kubectl.History(d, tt.rss)
			frozen.Check(t)
			if err != nil {
				t.Fatal(err)
			}
			var rows []row
			for _, e := range got {
				rows = append(rows, row{e.Revision, e.ChangeCause, e.ReplicaSet.Name})
				if e.Template.Annotations[deployutil.ChangeCauseAnnotation] != e.ChangeCause {
					t.Errorf("revision %d: template change-cause %q, entry %q", e.Revision, e.Template.Annotations[deployutil.ChangeCauseAnnotation], e.ChangeCause)
				}
			}
			if diff := cmp.Diff(tt.want, rows); diff != "" {
				t.Errorf("History (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}

func TestHistoryText(t *testing.T) {
	three := []*appsv1.ReplicaSet{owned("a", "nginx:1", "1", "kubectl set image deployment/web web=nginx:1", 0),
		owned("b", "nginx:2", "2", "", 1), owned("c", "nginx:3", "10", "", 2)}
	tests := []struct {
		name     string
		rss      []*appsv1.ReplicaSet
		revision int64
		want     string
		wantErr  string
		reason   string
	}{
		{name: "table", rss: three, want: "deployment.apps/web \n" +
			"REVISION  CHANGE-CAUSE\n" +
			"1         kubectl set image deployment/web web=nginx:1\n" +
			"2         <none>\n" +
			"10        <none>\n" +
			"\n", reason: "kubectl's header with a trailing space, a tabwriter table, and an empty line"},
		{name: "empty", rss: nil, want: "deployment.apps/web \nNo rollout history found.\n",
			reason: "no ReplicaSet: kubectl still prints the header"},
		{name: "empty with revision", rss: nil, revision: 2, want: "deployment.apps/web with revision #2\nNo rollout history found.\n",
			reason: "kubectl checks for an empty history before the revision"},
		{name: "revision", rss: three, revision: 2, want: "deployment.apps/web with revision #2\n" +
			"Pod Template:\n" +
			"  Labels:\tapp=web\n" +
			"\tpod-template-hash=b\n" +
			"  Containers:\n" +
			"   web:\n" +
			"    Image:\tnginx:2\n" +
			"    Port:\t<none>\n" +
			"    Host Port:\t<none>\n" +
			"    Environment:\t<none>\n" +
			"    Mounts:\t<none>\n" +
			"  Volumes:\t<none>\n" +
			"  Node-Selectors:\t<none>\n" +
			"  Tolerations:\t<none>\n" +
			"\n", reason: "the describe printer's text, tabs unaligned, hash label included"},
		{name: "revision not found", rss: three, revision: 3, wantErr: "unable to find the specified revision",
			reason: "kubectl's error for a revision not in the history"},
		{name: "negative", rss: three, revision: -1, wantErr: "revision must be a positive integer: -1",
			reason: "kubectl's usage error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := webDeployment("nginx:3")
			frozen := testutil.Freeze(t, d, tt.rss)
			got, err := kubectl.HistoryText(d, tt.rss, tt.revision)
			frozen.Check(t)
			if errString(err) != tt.wantErr || got != tt.want {
				t.Errorf("HistoryText = %q, %v\nwant %q, %q (%s)", got, err, tt.want, tt.wantErr, tt.reason)
			}
		})
	}
}

func TestDescribeTemplate(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(*corev1.PodTemplateSpec)
		contains  string
		wantField string
		reason    string
	}{
		{name: "annotations folded", edit: func(tp *corev1.PodTemplateSpec) {
			tp.Annotations = map[string]string{"a": "x\ny", corev1.LastAppliedConfigAnnotation: "{}"}
		}, contains: "  Annotations:\ta:\n\t  x\n\t  y\n", reason: "multi-line values are folded; last-applied is hidden"},
		{name: "escaped", edit: func(tp *corev1.PodTemplateSpec) { tp.Spec.Containers[0].Image = "a\x1bb\rc" },
			contains: "    Image:\ta^[b\\rc\n", reason: "kubectl escapes terminal control characters"},
		{name: "mounts sorted", edit: func(tp *corev1.PodTemplateSpec) {
			tp.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "b", MountPath: "/b"}, {Name: "a", MountPath: "/a", ReadOnly: true, SubPath: "s"}}
		}, contains: "    Mounts:\n      /a from a (ro,path=\"s\")\n      /b from b (rw)\n", reason: "mounts by path, on a copy"},
		{name: "iscsi refused", edit: func(tp *corev1.PodTemplateSpec) {
			tp.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{}}}}
		}, wantField: "spec.volumes[0].iscsi", reason: "an in-tree driver not rendered here"},
		{name: "grpc without service refused", edit: func(tp *corev1.PodTemplateSpec) {
			tp.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 1}}}
		}, wantField: "spec.containers[0].livenessProbe.grpc.service", reason: "kubectl crashes on it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			tp := podTemplate("nginx:1", "")
			tt.edit(&tp)
			frozen := testutil.Freeze(t, &tp)
			got, err := kubectl.DescribeTemplate(&tp)
			frozen.Check(t)
			var und *kubectl.UndescribedError
			switch {
			case tt.wantField != "":
				if !errors.As(err, &und) || und.Field != tt.wantField {
					t.Errorf("err = %v, want UndescribedError for %s (%s)", err, tt.wantField, tt.reason)
				}
			case err != nil || !strings.Contains(got, tt.contains):
				t.Errorf("DescribeTemplate = %q, %v; want it to contain %q (%s)", got, err, tt.contains, tt.reason)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
