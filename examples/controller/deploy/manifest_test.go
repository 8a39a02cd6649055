// Package deploy holds the in-cluster manifests of deploysync-controller;
// its test checks that they decode and grant what the controller uses.
package deploy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/examples/controller/applier"
)

// need is one right: an API group, a resource (with its subresource) and a
// verb, with where the controller uses it.
type need struct {
	group, resource, verb, namespace string // namespace "" = cluster-wide
	why                              string
}

// TestManifests decodes every document of controller.yaml with client-go's
// scheme (unknown fields are an error) and checks that the ServiceAccount
// of the Deployment is granted every right the controller uses: the calls
// the Applier makes (recorded from a fake clientset, one per method a
// Sync plan uses), the informers' list and watch, the event sink and the
// leader election Lease.
func TestManifests(t *testing.T) {
	objs := decode(t, "controller.yaml")
	var (
		dep      *appsv1.Deployment
		sa       *corev1.ServiceAccount
		roles    = map[string]*rbacv1.ClusterRole{}
		nsRoles  = map[string]*rbacv1.Role{}
		bindings []runtime.Object
	)
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment:
			dep = o
		case *corev1.ServiceAccount:
			sa = o
		case *rbacv1.ClusterRole:
			roles[o.Name] = o
		case *rbacv1.Role:
			nsRoles[o.Namespace+"/"+o.Name] = o
		case *rbacv1.ClusterRoleBinding, *rbacv1.RoleBinding:
			bindings = append(bindings, o)
		}
	}
	if dep == nil || sa == nil {
		t.Fatalf("controller.yaml needs a Deployment and a ServiceAccount")
	}
	if dep.Spec.Template.Spec.ServiceAccountName != sa.Name || dep.Namespace != sa.Namespace {
		t.Fatalf("the Deployment runs as %s/%s, the manifest's ServiceAccount is %s/%s",
			dep.Namespace, dep.Spec.Template.Spec.ServiceAccountName, sa.Namespace, sa.Name)
	}
	args := strings.Join(dep.Spec.Template.Spec.Containers[0].Args, " ")
	if !strings.Contains(args, "--leader-elect") || !strings.Contains(args, "--leader-elect-namespace="+dep.Namespace) {
		t.Errorf("two replicas need --leader-elect with the Lease in %s; args are %q", dep.Namespace, args)
	}

	needs := applierNeeds(t)
	needs = append(needs,
		need{"apps", "deployments", "list", "", "informer"}, need{"apps", "deployments", "watch", "", "informer"},
		need{"apps", "replicasets", "list", "", "informer"}, need{"apps", "replicasets", "watch", "", "informer"},
		need{"", "pods", "list", "", "informer (Recreate reads pods)"}, need{"", "pods", "watch", "", "informer"},
		need{"", "events", "create", "", "event sink"}, need{"", "events", "patch", "", "event sink (repeated events)"},
		need{"coordination.k8s.io", "leases", "get", dep.Namespace, "leader election"},
		need{"coordination.k8s.io", "leases", "create", dep.Namespace, "leader election"},
		need{"coordination.k8s.io", "leases", "update", dep.Namespace, "leader election"},
	)
	for _, n := range needs {
		if !granted(n, sa, roles, nsRoles, bindings) {
			t.Errorf("ServiceAccount %s/%s may not %s %s (group %q) in %q: the controller needs it for %s",
				sa.Namespace, sa.Name, n.verb, n.resource, n.group, n.namespace, n.why)
		}
	}
}

// applierNeeds calls every method of the Applier that a Sync plan uses on
// a fake clientset and returns the calls it made.
func applierNeeds(t *testing.T) []need {
	ctx := context.Background()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "d-uid"}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", UID: "rs-uid"},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1)}}
	client := fake.NewClientset(d)
	a := &applier.Applier{Client: client, Recorder: record.NewFakeRecorder(10)}
	calls := []error{}
	_, err := a.CreateReplicaSet(ctx, rs)
	calls = append(calls, err)
	_, err = a.UpdateReplicaSet(ctx, rs)
	calls = append(calls, err)
	_, err = a.PatchReplicaSet(ctx, "shop", "web-1", types.StrategicMergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`))
	calls = append(calls, err)
	_, err = a.GetDeployment(ctx, "shop", "web")
	calls = append(calls, err)
	_, err = a.UpdateDeployment(ctx, d)
	calls = append(calls, err)
	_, err = a.UpdateDeploymentStatus(ctx, d)
	calls = append(calls, err)
	calls = append(calls, a.DeleteReplicaSet(ctx, "shop", "web-1", "rs-uid"))
	for i, err := range calls {
		if err != nil {
			t.Fatalf("call %d on the fake clientset: %v", i, err)
		}
	}
	var out []need
	for _, act := range client.Actions() {
		res := act.GetResource()
		r := res.Resource
		if act.GetSubresource() != "" {
			r += "/" + act.GetSubresource()
		}
		out = append(out, need{res.Group, r, act.GetVerb(), "", "Applier." + verbName(act)})
	}
	if len(out) != len(calls) {
		t.Fatalf("the fake recorded %d calls for %d methods", len(out), len(calls))
	}
	return out
}

func verbName(a clienttesting.Action) string { return a.GetVerb() + " " + a.GetResource().Resource }

// granted reports whether a binding of the ServiceAccount gives a rule that
// covers n: a ClusterRoleBinding everywhere, a RoleBinding in its namespace.
func granted(n need, sa *corev1.ServiceAccount, roles map[string]*rbacv1.ClusterRole, nsRoles map[string]*rbacv1.Role, bindings []runtime.Object) bool {
	binds := func(subjects []rbacv1.Subject) bool {
		return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
			return s.Kind == rbacv1.ServiceAccountKind && s.Name == sa.Name && s.Namespace == sa.Namespace
		})
	}
	for _, b := range bindings {
		var rules []rbacv1.PolicyRule
		switch b := b.(type) {
		case *rbacv1.ClusterRoleBinding:
			if r := roles[b.RoleRef.Name]; binds(b.Subjects) && b.RoleRef.Kind == "ClusterRole" && r != nil {
				rules = r.Rules
			}
		case *rbacv1.RoleBinding:
			if n.namespace != b.Namespace || !binds(b.Subjects) {
				continue
			}
			if r := nsRoles[b.Namespace+"/"+b.RoleRef.Name]; b.RoleRef.Kind == "Role" && r != nil {
				rules = r.Rules
			}
		}
		for _, r := range rules {
			if covers(r.APIGroups, n.group) && covers(r.Resources, n.resource) && covers(r.Verbs, n.verb) {
				return true
			}
		}
	}
	return false
}

func covers(list []string, v string) bool {
	return slices.Contains(list, v) || slices.Contains(list, "*")
}

func decode(t *testing.T, path string) []runtime.Object {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out []runtime.Object
	for {
		doc, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if onlyComments(doc) {
			continue
		}
		obj, _, err := dec.Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, obj)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no objects", path)
	}
	return out
}

// onlyComments reports whether a YAML document holds nothing but comments
// and blank lines (the header before the first object).
func onlyComments(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") && l != "---" {
			return false
		}
	}
	return true
}
