package deployutil

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// The golden values below were produced by upstream's controller.ComputeHash
// at k8s.io/kubernetes v1.37.2 (reference Appendix A); the conformance module
// re-derives them from upstream's code.
func TestComputeHashGolden(t *testing.T) {
	nginx := corev1.PodTemplateSpec{}
	nginx.Labels = map[string]string{"app": "nginx"}
	nginx.Spec.Containers = []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}
	testTemplate := corev1.PodTemplateSpec{}
	testTemplate.Labels = map[string]string{"foo": "bar"}
	testTemplate.Spec.Containers = []corev1.Container{{Image: "foo/bar"}}

	decoded := func(cpu string) corev1.PodTemplateSpec {
		var tpl corev1.PodTemplateSpec
		doc := `{"metadata":{"labels":{"app":"q"}},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"` + cpu + `"}}}]}}`
		if err := json.Unmarshal([]byte(doc), &tpl); err != nil {
			t.Fatal(err)
		}
		return tpl
	}
	stringCalled := decoded("1000m")
	q := stringCalled.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
	_ = q.String()
	stringCalled.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = q
	newQuantity := decoded("1")
	newQuantity.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = *resource.NewQuantity(1, resource.DecimalSI)

	tests := []struct {
		name      string
		template  corev1.PodTemplateSpec
		collision *int32
		want      string
		reason    string
	}{
		{name: "empty", want: "54f4c57dcb", reason: "the dump of the zero template"},
		{name: "empty cc 0", collision: ptr.To[int32](0), want: "98789f664", reason: "collisionCount 0 still appends 8 zero bytes, and the decimal sum has 9 digits"},
		{name: "empty cc 1", collision: ptr.To[int32](1), want: "6554565b97", reason: "collisionCount is mixed in little-endian"},
		{name: "empty cc 2", collision: ptr.To[int32](2), want: "7bcbcd84db", reason: "each collision count gives a new name"},
		{name: "empty cc max", collision: ptr.To[int32](math.MaxInt32), want: "7d688c8ff6", reason: "the largest count"},
		{name: "empty cc -1", collision: ptr.To[int32](-1), want: "6865669fbd", reason: "negative counts hash as their two's complement"},
		{name: "empty labels map", template: corev1.PodTemplateSpec{}, want: "5bd4f98d7f", reason: "an empty non-nil label map dumps differently from nil"},
		{name: "upstream test template", template: testTemplate, want: "5d94f67bbb", reason: "the template of upstream's newDeployment test helper"},
		{name: "nginx", template: nginx, want: "76f8596b8b", reason: "a typical template"},
		{name: "nginx cc 1", template: nginx, collision: ptr.To[int32](1), want: "549bbcb6b7", reason: "a collision renames it"},
		{name: "decoded cpu 1", template: decoded("1"), want: "868fcd767c", reason: "quantities hash by their internal state after decoding"},
		{name: "decoded cpu 1000m", template: decoded("1000m"), want: "58695997bb", reason: "1000m and 1 are equal quantities but hash differently"},
		{name: "cpu String called", template: stringCalled, want: "67c5795f8c", reason: "String() caches the text form inside the quantity"},
		{name: "cpu NewQuantity", template: newQuantity, want: "75798db6d", reason: "a constructed quantity has yet another internal form"},
	}
	tests[6].template.Labels = map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			if got := ComputeHash(&tt.template, tt.collision); got != tt.want {
				t.Errorf("ComputeHash = %q, want %q (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestComputeHashCollisionCount restates upstream's TestComputeHash (2
// rows): different collision counts give different hashes, and a nil count
// differs from the largest one.
func TestComputeHashCollisionCount(t *testing.T) {
	tests := []struct {
		name       string
		count      *int32
		otherCount *int32
		reason     string
	}{
		{name: "1 and 2", count: ptr.To[int32](1), otherCount: ptr.To[int32](2), reason: "upstream: each collision gives another name"},
		{name: "nil and MaxInt32", count: nil, otherCount: ptr.To[int32](math.MaxInt32), reason: "upstream: the largest count still changes the hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			tpl := &corev1.PodTemplateSpec{}
			frozen := testutil.Freeze(t, tpl)
			defer frozen.Check(t)
			if a, b := ComputeHash(tpl, tt.count), ComputeHash(tpl, tt.otherCount); a == b {
				t.Errorf("both hashes are %q (%s)", a, tt.reason)
			}
		})
	}
}

// TestComputeHashNoCollisions restates upstream's TestPodTemplateSpecHash:
// 1000 decoded templates that differ in one field get 1000 hashes.
func TestComputeHashNoCollisions(t *testing.T) {
	seen := make(map[string]int)
	for i := 0; i < 1000; i++ {
		doc := fmt.Sprintf(`{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"registry.example/web:1.%d",`+
			`"ports":[{"containerPort":8080,"protocol":"TCP"}],"resources":{"requests":{"cpu":"250m","memory":"64Mi"}}}],`+
			`"restartPolicy":"Always","dnsPolicy":"ClusterFirst","securityContext":{}}}`, i)
		var tpl corev1.PodTemplateSpec
		if err := json.Unmarshal([]byte(doc), &tpl); err != nil {
			t.Fatal(err)
		}
		frozen := testutil.Freeze(t, &tpl)
		h := ComputeHash(&tpl, nil)
		frozen.Check(t)
		if j, ok := seen[h]; ok {
			t.Fatalf("templates %d and %d both hash to %q", j, i, h)
		}
		seen[h] = i
	}
}

// TestReplicaSetName restates upstream's TestGenerateReplicaSetName (4
// rows) and a few names at the length limits.
func TestReplicaSetName(t *testing.T) {
	tests := []struct {
		name       string
		deployment string
		hash       string
		want       string
		reason     string
	}{
		{name: "short", deployment: "my-deployment", hash: "abcde12345", want: "my-deployment-abcde12345",
			reason: "upstream: name, dash, hash"},
		{name: "longest untruncated", deployment: strings.Repeat("a", 242), hash: "abcde12345", want: strings.Repeat("a", 242) + "-abcde12345",
			reason: "upstream: 242 + 1 + 10 = 253 characters fit"},
		{name: "truncated", deployment: strings.Repeat("b", 250), hash: "abcde12345", want: strings.Repeat("b", 242) + "-abcde12345",
			reason: "upstream: the Deployment name is cut to fit 253 characters"},
		{name: "hash never cut", deployment: strings.Repeat("d", 252), hash: strings.Repeat("h", 252), want: strings.Repeat("d", 252) + "-" + strings.Repeat("h", 252),
			reason: "upstream: with no room left at all, nothing is cut"},
		{name: "reference", deployment: "nginx-deploy", hash: "54f4c57dcb", want: "nginx-deploy-54f4c57dcb",
			reason: "reference Appendix A: the name for the empty template"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			if got := ReplicaSetName(tt.deployment, tt.hash); got != tt.want {
				t.Errorf("ReplicaSetName = %q, want %q (%s)", got, tt.want, tt.reason)
			}
		})
	}
}
