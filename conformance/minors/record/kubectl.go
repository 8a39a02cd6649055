package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/conformance/minors"
	"github.com/deploysync/deploysync/conformance/minors/corpus"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
)

// kubectlState varies a generated state so that kubectl's answers reach
// what the generator alone does not: a last-applied annotation (undo's
// warning), change-causes on templates and ReplicaSets, a Deployment whose
// template is one of the revisions' (undo skips), and the hand-shaped and
// fuzzed templates of the templates corpus (the describe printer: named
// ports, probes, fields an older minor lacks).
func kubectlState(seed uint64, s deploysync.State) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	r := rand.New(rand.NewPCG(seed, 0xc71))
	d := s.Deployment.DeepCopy()
	rss := make([]*appsv1.ReplicaSet, len(s.ReplicaSets))
	for i, rs := range s.ReplicaSets {
		rs = rs.DeepCopy()
		switch r.IntN(6) {
		case 0:
			if rs.Annotations == nil {
				rs.Annotations = map[string]string{}
			}
			rs.Annotations[deployutil.ChangeCauseAnnotation] = "kubectl set image deployment/web web=nginx:" + strconv.Itoa(r.IntN(9))
		case 1:
			if rs.Spec.Template.Annotations == nil {
				rs.Spec.Template.Annotations = map[string]string{}
			}
			rs.Spec.Template.Annotations[deployutil.ChangeCauseAnnotation] = "template cause"
		case 2:
			hand := handShaped()
			withTemplate(&rs.Spec.Template, hand[r.IntN(len(hand))])
		case 3:
			withTemplate(&rs.Spec.Template, fuzzedTemplate(seed*16+uint64(i)))
		}
		rss[i] = rs
	}
	if r.IntN(3) == 0 {
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[corev1.LastAppliedConfigAnnotation] = `{"kind":"Deployment"}`
	}
	switch r.IntN(4) {
	case 0:
		if len(rss) > 0 {
			t := *rss[r.IntN(len(rss))].Spec.Template.DeepCopy()
			delete(t.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
			d.Spec.Template = t
		}
	case 1:
		hand := handShaped()
		withTemplate(&d.Spec.Template, hand[r.IntN(len(hand))])
	}
	return d, rss
}

// withTemplate replaces *dst by t, keeping dst's labels (so the objects
// still match their selectors).
func withTemplate(dst *corev1.PodTemplateSpec, t corev1.PodTemplateSpec) {
	labels := dst.Labels
	*dst = *t.DeepCopy()
	dst.Labels = labels
}

// recordKubectl records kubectl's answers on every scenario and on n
// varied random states (randstate.Valid, seeds 1 to n).
func recordKubectl(o *oracle, n int) ([]minors.Record, []string, error) {
	var recs []minors.Record
	ask := func(id string, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) error {
		st, err := corpus.Encode(deploysync.State{Deployment: d, ReplicaSets: rss})
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		resp, err := o.ask(minors.Request{Op: "kubectl", State: st, Revisions: minors.KubectlRevisions(d, rss)})
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		recs = append(recs, minors.Record{ID: id, Input: resp.Input, Kubectl: resp.Kubectl})
		return nil
	}
	for _, sc := range scenarios.All() {
		if err := ask(sc.Name, sc.State.Deployment, sc.State.ReplicaSets); err != nil {
			return nil, nil, err
		}
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		c := randstate.Valid(randstate.NewRand(seed))
		d, rss := kubectlState(seed, c.State)
		if err := ask(fmt.Sprintf("seed %d", seed), d, rss); err != nil {
			return nil, nil, err
		}
	}
	return recs, nil, nil
}
