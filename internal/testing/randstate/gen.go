// Package gen generates Deployment states from a stream of choices, for
// property tests, fuzzing and the conformance suite. A [Source] makes the
// choices: a fuzzer's bytes, a seeded random generator, or a property-test
// framework that shrinks failures.
//
// [Valid] produces states an apiserver could hold (mostly: the conformance
// suite classifies each with upstream's validation); [Any] starts from such
// a state and may break it, to exercise validation.
package randstate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/simulate"
)

// Source makes the generator's choices.
type Source interface {
	// Intn returns a number in [0, n); n > 0.
	Intn(n int) int
}

// Bytes is a Source reading a fuzzer's input; once the bytes run out every
// choice is 0 (the simplest option).
type Bytes struct {
	b []byte
}

// NewBytes returns a Source over b.
func NewBytes(b []byte) *Bytes { return &Bytes{b: b} }

// Intn implements Source.
func (s *Bytes) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	var v int
	need := 1
	if n > 256 {
		need = 4
	}
	for i := 0; i < need; i++ {
		v <<= 8
		if len(s.b) > 0 {
			v |= int(s.b[0])
			s.b = s.b[1:]
		}
	}
	return v % n
}

// Rand is a Source from a seeded generator.
type Rand struct{ r *rand.Rand }

// NewRand returns a Source seeded with seed.
func NewRand(seed uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Intn implements Source.
func (s *Rand) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	return s.r.IntN(n)
}

// Case is a generated state with the options of its sync.
type Case struct {
	State               deploysync.State
	TerminatingReplicas bool
}

// Options returns the Sync options of the case.
func (c Case) Options() []deploysync.Option {
	return []deploysync.Option{deploysync.WithTerminatingReplicas(c.TerminatingReplicas)}
}

// Base is the time around which every generated timestamp lies.
var Base = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

type g struct {
	src Source
}

func (g g) n(n int) int { return g.src.Intn(n) }

// chance is true with pct percent probability for a uniform source; a low
// draw is false, so a source that favours small numbers (rapid, whose
// shrinking goes towards 0; a fuzzer's exhausted input) favours the plain
// state over its features.
func (g g) chance(pct int) bool { return g.src.Intn(100) >= 100-pct }
func pick[T any](g g, xs ...T) T {
	return xs[g.n(len(xs))]
}

// Valid generates a state an apiserver could hold, across the space a real
// cluster holds: any string in the controller's annotations, sizes and
// status counts up to 2³¹−1 whose sums overflow int32, collisionCount at
// its limit, hash collisions on ReplicaSets the same sync adopts or
// releases, pods a caller's cache can file under a ReplicaSet. A few of its
// states are not valid (an empty selector, the legacy object upstream keeps
// a branch for); the conformance suite classifies every state with
// upstream's validation.
func Valid(src Source) Case {
	gg := g{src}
	d := gg.deployment()
	c := Case{TerminatingReplicas: gg.chance(80)}
	c.State = deploysync.State{Deployment: d, Now: Base}
	if gg.chance(20) {
		if st, ok := gg.steady(d); ok {
			c.State = st
			return c
		}
	}
	nRS := gg.n(16)
	if gg.chance(30) {
		nRS = gg.n(4)
	}
	names := map[string]bool{}
	for i := 0; i < nRS; i++ {
		rs := gg.replicaSet(d, i)
		if names[rs.Name] {
			continue
		}
		names[rs.Name] = true
		c.State.ReplicaSets = append(c.State.ReplicaSets, rs)
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType || gg.chance(10) {
		c.State.Pods = gg.pods(c.State.ReplicaSets)
	}
	gg.deploymentStatus(d, c.State.ReplicaSets)
	return c
}

// steady makes the state most syncs see: a Deployment fully rolled out on
// one ReplicaSet (simulate.Steady), with older ReplicaSets scaled to zero,
// then maybe changed as users change it — a new image (a rollout starts),
// a new size (a scaling event).
func (g g) steady(d *appsv1.Deployment) (deploysync.State, bool) {
	d = d.DeepCopy()
	if *d.Spec.Replicas > 1000 {
		d.Spec.Replicas = ptr.To(int32(g.n(20)))
	}
	rev := 1 + g.n(5)
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[deployutil.RevisionAnnotation] = strconv.Itoa(rev)
	st, err := simulate.Steady(d, Base)
	if err != nil {
		return st, false
	}
	cur := st.ReplicaSets[0]
	for r := rev - 1; r >= 1; r-- {
		old := cur.DeepCopy()
		tpl := template(fmt.Sprintf("nginx:old%d", r), "old"+strconv.Itoa(r))
		old.Name, old.UID = d.Name+"-old"+strconv.Itoa(r), types.UID("uid-old"+strconv.Itoa(r))
		old.Labels = cloneLabels(tpl.Labels)
		old.Spec.Template, old.Spec.Selector = tpl, &metav1.LabelSelector{MatchLabels: cloneLabels(tpl.Labels)}
		old.Spec.Replicas = ptr.To[int32](0)
		old.Status = appsv1.ReplicaSetStatus{ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)}
		old.Annotations = cloneMap(old.Annotations)
		old.Annotations[deployutil.RevisionAnnotation] = strconv.Itoa(r)
		old.CreationTimestamp = metav1.NewTime(Base.Add(-time.Duration(2+r) * time.Hour))
		st.ReplicaSets = append(st.ReplicaSets, old)
	}
	sd := st.Deployment
	switch g.n(4) {
	case 0: // as it is: history cleanup, or nothing
	case 1, 2:
		sd.Spec.Template = template(otherImage(sd.Spec.Template.Spec.Containers[0].Image), "")
		sd.Generation++
		if g.chance(30) {
			// A status already written since the change: no pod runs
			// the new template yet.
			sd.Status.ObservedGeneration, sd.Status.UpdatedReplicas = sd.Generation, 0
		}
		// Sometimes the rollout is under way: the controller has synced
		// once or twice since (its writes applied, the ReplicaSet
		// controller not yet caught up).
		for i := g.n(3); i > 0; i-- {
			p, err := deploysync.Sync(st)
			if err != nil || p.Err != nil {
				break
			}
			next, err := deploysync.Apply(st, p)
			if err != nil {
				break
			}
			for j, rs := range next.ReplicaSets {
				if rs.UID == "" {
					// Created: the apiserver's metadata.
					rs = rs.DeepCopy()
					rs.UID, rs.ResourceVersion, rs.Generation = types.UID("uid-"+rs.Name), strconv.Itoa(300+j), 1
					rs.CreationTimestamp = metav1.NewTime(Base.Add(-time.Second))
					next.ReplicaSets[j] = rs
				}
			}
			st = next
		}
	case 3:
		sd.Spec.Replicas = ptr.To(*sd.Spec.Replicas + int32(pick(g, -2, -1, 1, 3)))
		if *sd.Spec.Replicas < 0 {
			sd.Spec.Replicas = ptr.To[int32](0)
		}
		sd.Generation++
	}
	return st, true
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

var images = []string{"nginx:1", "nginx:2", "nginx:3", "nginx:4"}

// template is a pod template as an apiserver stores it: the defaults of
// apps/v1 and core/v1 filled in, so that upstream's validation of a
// Deployment or ReplicaSet accepts it.
func template(image string, hash string) corev1.PodTemplateSpec {
	labels := map[string]string{"app": "web"}
	if hash != "" {
		labels[deployutil.PodTemplateHashLabel] = hash
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "web", Image: image,
				TerminationMessagePath:   corev1.TerminationMessagePathDefault,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy:          corev1.PullIfNotPresent,
			}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds),
			DNSPolicy:                     corev1.DNSClusterFirst,
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
		},
	}
}

// oddNumbers are values a cluster can hold in the controller's integer
// annotations (any string passes validation): the limits of int32 and
// int64 and just beyond, signs, leading zeros, spaces, hex-looking and
// trailing text, the empty string.
var oddNumbers = []string{
	"2147483647", "2147483648", "4294967296", "4294967299", "-2147483648", "-2147483649",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"+5", "-5", "-1", "0", "007", "00", " 5", "5 ", "0x10", "", "abc", "1e3", "4294967296x", "1,2",
}

// annotation returns typical most of the time and otherwise an odd value.
func (g g) annotation(typical string, oddPct int) string {
	if g.chance(oddPct) {
		return pick(g, oddNumbers...)
	}
	return typical
}

func (g g) replicas() int32 {
	switch g.n(10) {
	case 0:
		return 0
	case 1:
		return int32(pick(g, 1000, 5000, 20000, 100000, 1<<30, math.MaxInt32-1, math.MaxInt32))
	case 2, 3:
		return int32(g.n(1001))
	}
	return int32(1 + g.n(12))
}

func (g g) intOrPercent(allowZero bool) intstr.IntOrString {
	ints, percents := []int{0, 0, 1, 1, 2, 3, 5, 10, 100}, []int{0, 1, 10, 25, 25, 33, 50, 75, 100}
	if !allowZero {
		ints, percents = ints[2:], percents[1:]
	}
	if g.chance(50) {
		return intstr.FromInt32(int32(pick(g, ints...)))
	}
	return intstr.FromString(strconv.Itoa(pick(g, percents...)) + "%")
}

func (g g) deployment() *appsv1.Deployment {
	replicas := g.replicas()
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: pick(g, "web", "web", "web", "a-rather-long-deployment-name"), Namespace: "default", UID: "d-uid",
			Generation: int64(1 + g.n(4)), ResourceVersion: "100",
			CreationTimestamp: metav1.NewTime(Base.Add(-48 * time.Hour)),
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: template(pick(g, images...), ""),
		},
	}
	if g.chance(5) {
		d.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "api"}}}}
	}
	if g.chance(25) {
		d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType
	} else {
		d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
		surge := g.intOrPercent(true)
		unavailable := g.intOrPercent(surge.String() != "0" && surge.String() != "0%")
		if replicas > 100000 && !g.chance(10) {
			// Mostly keep replicas+maxSurge within int32; sometimes not,
			// since an apiserver does not check the sum.
			surge = intstr.FromString("25%")
		}
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}
	}
	d.Spec.MinReadySeconds = int32(pick(g, 0, 0, 0, 5, 30))
	switch g.n(6) {
	case 0:
	case 1:
		d.Spec.ProgressDeadlineSeconds = ptr.To[int32](math.MaxInt32)
	default:
		d.Spec.ProgressDeadlineSeconds = ptr.To(max(int32(pick(g, 60, 600, 600, 30)), d.Spec.MinReadySeconds+1))
	}
	switch g.n(6) {
	case 0:
	case 1:
		d.Spec.RevisionHistoryLimit = ptr.To[int32](math.MaxInt32)
	default:
		d.Spec.RevisionHistoryLimit = ptr.To(int32(pick(g, 0, 1, 2, 10)))
	}
	d.Spec.Paused = g.chance(15)
	if g.chance(8) {
		d.DeletionTimestamp = ptr.To(metav1.NewTime(Base.Add(-time.Minute)))
	}
	ann := map[string]string{}
	if g.chance(60) {
		ann[deployutil.RevisionAnnotation] = g.annotation(strconv.Itoa(g.n(6)), 8)
	}
	// The ReplicaSet annotations on the Deployment: a user's copy, or
	// leftovers; a new ReplicaSet does not inherit them.
	if g.chance(4) {
		ann[deployutil.DesiredReplicasAnnotation] = g.annotation(strconv.Itoa(int(replicas)), 50)
	}
	if g.chance(4) {
		ann[deployutil.MaxReplicasAnnotation] = g.annotation(strconv.Itoa(int(replicas)+1), 50)
	}
	if g.chance(3) {
		ann[deployutil.RevisionHistoryAnnotation] = g.annotation("1,2", 50)
	}
	if g.chance(20) {
		ann["team"] = pick(g, "blue", "red")
	}
	if g.chance(15) {
		ann[deployutil.ChangeCauseAnnotation] = pick(g, "v1", "v2", "v3")
	}
	if g.chance(5) {
		ann[corev1.LastAppliedConfigAnnotation] = "{}"
	}
	if g.chance(12) {
		ann[deployutil.RollbackToAnnotation] = g.annotation(pick(g, "0", "0", "1", "2", "3", "9", "-1", "abc", ""), 30)
	}
	if len(ann) > 0 || g.chance(50) {
		d.Annotations = ann
	}
	if g.chance(3) {
		d.Spec.Selector = &metav1.LabelSelector{}
	}
	switch g.n(20) {
	case 0, 1:
		d.Status.CollisionCount = ptr.To(int32(g.n(4)))
	case 2:
		// At the limit: one more collision wraps around.
		d.Status.CollisionCount = ptr.To(int32(pick(g, math.MaxInt32-1, math.MaxInt32)))
	}
	return d
}

// Kinds of ReplicaSet that take the name the new ReplicaSet would get.
const (
	collideNone       = iota
	collideOurs       // ours, with the Deployment's template
	collideOursOther  // ours, another template
	collideReleased   // ours, labels no longer match: this sync releases it
	collideAdoptOther // an orphan whose labels match, another template: this sync adopts it
	collideAdoptSame  // an orphan whose labels match, the Deployment's template
	collideForeign    // another Deployment's
	collideOrphanOff  // an orphan whose labels do not match
)

func (g g) replicaSet(d *appsv1.Deployment, i int) *appsv1.ReplicaSet {
	ownImage := d.Spec.Template.Spec.Containers[0].Image
	image := pick(g, images...)
	if g.chance(30) {
		image = ownImage
	}
	hash := "h" + strconv.Itoa(g.n(1000))
	name := "web-" + hash
	collide := collideNone
	if g.chance(12) {
		collide = 1 + g.n(collideOrphanOff)
		// The name the new ReplicaSet would get.
		hash = deployutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
		name = deployutil.ReplicaSetName(d.Name, hash)
		switch collide {
		case collideOurs, collideAdoptSame:
			image = ownImage
		case collideOursOther, collideAdoptOther:
			if image == ownImage {
				image = otherImage(ownImage)
			}
		}
	}
	tpl := template(image, hash)
	if collide == collideNone && g.chance(5) {
		tpl.Labels = map[string]string{"app": "web"} // adopted from elsewhere: no hash label
	}
	replicas := int32(0)
	if g.chance(60) {
		replicas = int32(g.n(int(min(*d.Spec.Replicas, 1000)) + 3))
	}
	if g.chance(3) {
		// Sizes whose sums overflow int32, as an apiserver lets them be.
		replicas = int32(pick(g, 1<<30, math.MaxInt32-1, math.MaxInt32))
	}
	// Few distinct creation times: ties are common, as with one-second
	// timestamps.
	created := Base.Add(-time.Duration(g.n(6)) * time.Hour)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: types.UID("uid-" + name), ResourceVersion: strconv.Itoa(200 + i),
			Generation: int64(1 + g.n(3)), Labels: cloneLabels(tpl.Labels), CreationTimestamp: metav1.NewTime(created),
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: cloneLabels(tpl.Labels)},
			Template: tpl,
		},
	}
	ours := []metav1.OwnerReference{deployutil.ControllerRef(d)}
	foreign := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", UID: "other-uid", Controller: ptr.To(true)}}
	switch collide {
	case collideNone:
		switch g.n(10) {
		case 0:
			rs.Labels = map[string]string{"app": "other"}
		case 1:
			rs.Labels = nil
		}
		switch g.n(10) {
		case 0, 1:
		case 2:
			rs.OwnerReferences = foreign
		case 3:
			rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "cm-uid"}}
		case 4:
			rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID}}
		default:
			rs.OwnerReferences = ours
		}
	case collideOurs, collideOursOther:
		rs.OwnerReferences = ours
	case collideReleased:
		rs.OwnerReferences = ours
		rs.Labels = map[string]string{"app": pick(g, "moved", "other")}
	case collideAdoptOther, collideAdoptSame:
	case collideForeign:
		rs.OwnerReferences = foreign
		if g.chance(50) {
			rs.Labels = map[string]string{"app": "other"}
		}
	case collideOrphanOff:
		rs.Labels = map[string]string{"app": "other"}
	}
	// Status: what the ReplicaSet controller last reported.
	cur := replicas
	if g.chance(30) {
		cur = int32(g.n(int(min(replicas, 1<<20)) + 3))
	}
	if g.chance(2) {
		cur = int32(pick(g, 1<<30, math.MaxInt32))
	}
	ready := cur
	if g.chance(40) {
		ready = int32(g.n(int(cur) + 1))
	}
	avail := ready
	if g.chance(40) {
		avail = int32(g.n(int(ready) + 1))
	}
	rs.Status = appsv1.ReplicaSetStatus{Replicas: cur, FullyLabeledReplicas: cur, ReadyReplicas: ready, AvailableReplicas: avail}
	switch g.n(5) {
	case 0:
	case 1:
		rs.Status.ObservedGeneration = rs.Generation + int64(g.n(2)) // ahead, or just caught up
	default:
		rs.Status.ObservedGeneration = rs.Generation - int64(g.n(2))
	}
	switch g.n(4) {
	case 0:
	default:
		rs.Status.TerminatingReplicas = ptr.To(int32(g.n(3)))
		if g.chance(2) {
			rs.Status.TerminatingReplicas = ptr.To(int32(pick(g, 1<<30, math.MaxInt32)))
		}
	}
	if g.chance(8) {
		rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			Reason: "FailedCreate", Message: "quota " + name, LastTransitionTime: metav1.NewTime(Base.Add(-time.Minute))}}
	}
	if g.chance(5) {
		rs.DeletionTimestamp = ptr.To(metav1.NewTime(Base.Add(-time.Second)))
	}
	ann := map[string]string{}
	switch g.n(10) {
	case 0:
	case 1:
		ann[deployutil.RevisionAnnotation] = pick(g, oddNumbers...)
	default:
		ann[deployutil.RevisionAnnotation] = strconv.Itoa(g.n(8))
	}
	dr := *d.Spec.Replicas
	switch g.n(8) {
	case 0:
	case 1:
		ann[deployutil.DesiredReplicasAnnotation] = pick(g, oddNumbers...)
	case 2, 3:
		ann[deployutil.DesiredReplicasAnnotation] = strconv.Itoa(int(dr) + pick(g, -2, -1, 1, 2))
	default:
		ann[deployutil.DesiredReplicasAnnotation] = strconv.Itoa(int(dr))
	}
	switch g.n(8) {
	case 0:
	case 1:
		ann[deployutil.MaxReplicasAnnotation] = pick(g, oddNumbers...)
	default:
		ann[deployutil.MaxReplicasAnnotation] = strconv.Itoa(int(dr) + g.n(4))
	}
	if g.chance(10) {
		ann[deployutil.RevisionHistoryAnnotation] = g.annotation(pick(g, "", "1", "1,2", ","), 30)
	}
	if g.chance(3) {
		ann[deployutil.RollbackToAnnotation] = pick(g, oddNumbers...)
	}
	if g.chance(10) {
		ann["team"] = pick(g, "blue", "green")
	}
	if g.chance(10) {
		ann[deployutil.ChangeCauseAnnotation] = pick(g, "v1", "v2")
	}
	if len(ann) > 0 || g.chance(50) {
		rs.Annotations = ann
	}
	if g.chance(5) {
		rs.Spec.MinReadySeconds = d.Spec.MinReadySeconds + 1
	}
	return rs
}

func otherImage(image string) string {
	for _, im := range images {
		if im != image {
			return im
		}
	}
	return image + "-other"
}

func cloneLabels(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// pods gives some ReplicaSets pods, filed under their UID; sometimes the
// map also holds what a caller's grouping of a cache can: pods of a
// ReplicaSet that was deleted (a UID no ReplicaSet has), pods without a
// controller, pods filed under one ReplicaSet but controlled by another.
func (g g) pods(rss []*appsv1.ReplicaSet) map[types.UID][]*corev1.Pod {
	out := map[types.UID][]*corev1.Pod{}
	newPod := func(name, owner string, uid types.UID, labels map[string]string) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: cloneLabels(labels)},
			Status:     corev1.PodStatus{Phase: pick(g, corev1.PodRunning, corev1.PodPending, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown, "")},
		}
		if owner != "" {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner, UID: uid, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
		}
		if g.chance(30) {
			p.DeletionTimestamp = ptr.To(metav1.NewTime(Base.Add(-time.Second)))
		}
		return p
	}
	for _, rs := range rss {
		n := g.n(4)
		if n == 0 && g.chance(50) {
			continue
		}
		list := []*corev1.Pod{}
		for j := 0; j < n; j++ {
			list = append(list, newPod(rs.Name+"-p"+strconv.Itoa(j), rs.Name, rs.UID, rs.Spec.Template.Labels))
		}
		out[rs.UID] = list
	}
	if g.chance(15) {
		// A deleted ReplicaSet's pods.
		out["uid-web-gone"] = []*corev1.Pod{newPod("web-gone-p0", "web-gone", "uid-web-gone", map[string]string{"app": "web"})}
	}
	if len(rss) > 0 && g.chance(15) {
		// A pod without a controller, filed under some ReplicaSet.
		rs := rss[g.n(len(rss))]
		out[rs.UID] = append(out[rs.UID], newPod(rs.Name+"-orphan", "", "", rs.Spec.Template.Labels))
	}
	if len(rss) > 1 && g.chance(15) {
		// A pod filed under one ReplicaSet, controlled by another.
		a, b := rss[g.n(len(rss))], rss[g.n(len(rss))]
		out[a.UID] = append(out[a.UID], newPod(b.Name+"-misfiled", b.Name, b.UID, b.Spec.Template.Labels))
	}
	return out
}

// deploymentStatus gives the Deployment a valid status that is often the
// one its ReplicaSets imply, with conditions whose times sit around the
// progress deadline.
func (g g) deploymentStatus(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
	st := &d.Status
	if g.chance(15) {
		return
	}
	var cur, ready, avail int32
	for _, rs := range rss {
		cur += rs.Status.Replicas
		ready += rs.Status.ReadyReplicas
		avail += rs.Status.AvailableReplicas
	}
	if g.chance(30) {
		cur, ready, avail = int32(g.n(20)), 0, 0
		ready = int32(g.n(int(cur) + 1))
		avail = int32(g.n(int(ready) + 1))
	}
	if cur < 0 || ready < 0 || avail < 0 || g.chance(3) {
		// The sums wrapped (an apiserver does not check them), or a
		// status as large as validation allows.
		cur = int32(pick(g, 1<<30, math.MaxInt32))
		ready = int32(g.n(int(cur) + 1))
		avail = pick(g, ready, int32(g.n(int(ready)+1)))
	}
	st.ObservedGeneration = d.Generation - int64(g.n(2))
	if g.chance(5) {
		st.ObservedGeneration = d.Generation + int64(1+g.n(2)) // ahead of the spec
	}
	st.Replicas, st.ReadyReplicas, st.AvailableReplicas = cur, ready, avail
	st.UpdatedReplicas = int32(g.n(int(cur) + 1))
	st.UnavailableReplicas = max(*d.Spec.Replicas-avail, 0)
	if g.chance(3) {
		st.UnavailableReplicas = int32(pick(g, 0, 1<<30, math.MaxInt32))
	}
	if g.chance(70) {
		st.TerminatingReplicas = ptr.To(int32(g.n(2)))
	}
	if g.chance(50) {
		st.Conditions = append(st.Conditions, cond(appsv1.DeploymentAvailable, corev1.ConditionTrue, deployutil.ReasonMinimumReplicasAvailable,
			"Deployment has minimum availability.", time.Hour))
	}
	if g.chance(70) {
		deadline := time.Duration(600) * time.Second
		if d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32 {
			deadline = time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
		}
		ago := pick(g, deadline-time.Second, deadline, deadline+time.Second, time.Minute, deadline-500*time.Millisecond, 2*time.Hour, 0)
		type c struct {
			s      corev1.ConditionStatus
			reason string
		}
		k := pick(g,
			c{corev1.ConditionTrue, deployutil.ReasonReplicaSetUpdated}, c{corev1.ConditionTrue, deployutil.ReasonNewReplicaSetAvailable},
			c{corev1.ConditionTrue, deployutil.ReasonNewReplicaSetCreated}, c{corev1.ConditionTrue, deployutil.ReasonFoundNewReplicaSet},
			c{corev1.ConditionFalse, deployutil.ReasonProgressDeadlineExceeded}, c{corev1.ConditionUnknown, deployutil.ReasonDeploymentPaused},
			c{corev1.ConditionUnknown, deployutil.ReasonDeploymentResumed})
		pc := cond(appsv1.DeploymentProgressing, k.s, k.reason, "progress of web", ago)
		if g.chance(50) {
			st.Conditions = append([]appsv1.DeploymentCondition{pc}, st.Conditions...)
		} else {
			st.Conditions = append(st.Conditions, pc)
		}
	}
	if g.chance(5) {
		st.Conditions = append(st.Conditions, cond(appsv1.DeploymentReplicaFailure, corev1.ConditionTrue, "FailedCreate", "old failure", time.Hour))
	}
}

func cond(t appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason, msg string, ago time.Duration) appsv1.DeploymentCondition {
	at := metav1.NewTime(Base.Add(-ago))
	return appsv1.DeploymentCondition{Type: t, Status: s, Reason: reason, Message: msg, LastUpdateTime: at, LastTransitionTime: at}
}

// ProportionalOverflow reports whether a case is one whose proportional
// scaling FixProportionalOverflow may change: a RollingUpdate Deployment
// with replicas > 0, several active ReplicaSets, the new one not saturated,
// something to add or remove, and some active ReplicaSet's size × (replicas
// + maxSurge) outside int32 (maxSurge may have wrapped it negative), which
// upstream multiplies in int32 and wraps around. (The sync scales proportionally only when paused or on a scaling
// event; the caller checks the branch.)
func ProportionalOverflow(c Case) bool {
	d := c.State.Deployment
	if d == nil || facts.Validate(d, c.State.ReplicaSets, c.State.Pods) != nil || facts.IsSelectingAll(d) {
		return false
	}
	if !facts.IsRollingUpdate(d) || *d.Spec.Replicas == 0 {
		return false
	}
	maxReplicas := int64(facts.MaxReplicas(d))
	claimed, _, err := facts.Claim(d, c.State.ReplicaSets)
	if err != nil {
		return false
	}
	newRS, old := facts.SplitReplicaSets(d, claimed)
	active := facts.FilterActive(append(old, newRS))
	if len(active) < 2 || facts.IsSaturated(d, newRS) || int64(facts.SpecReplicas(active)) == maxReplicas {
		return false
	}
	for _, rs := range active {
		if p := int64(*rs.Spec.Replicas) * maxReplicas; p > math.MaxInt32 || p < math.MinInt32 {
			return true
		}
	}
	return false
}
