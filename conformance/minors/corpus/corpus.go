// Package corpus decodes the records of package minors into the library's
// types: the recorder continues trajectories from them, and the suite's
// check feeds them to Sync.
package corpus

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/conformance/minors"
)

// State decodes a recorded input.
func State(st *minors.State) (deploysync.State, error) {
	if st == nil {
		return deploysync.State{}, fmt.Errorf("no input recorded")
	}
	s := deploysync.State{Now: st.Now, Deployment: &appsv1.Deployment{}}
	if err := json.Unmarshal(st.Deployment, s.Deployment); err != nil {
		return s, fmt.Errorf("the Deployment: %w", err)
	}
	for i, raw := range st.ReplicaSets {
		rs := &appsv1.ReplicaSet{}
		if err := json.Unmarshal(raw, rs); err != nil {
			return s, fmt.Errorf("ReplicaSet %d: %w", i, err)
		}
		s.ReplicaSets = append(s.ReplicaSets, rs)
	}
	if len(st.Pods) > 0 {
		s.Pods = map[types.UID][]*corev1.Pod{}
		for uid, list := range st.Pods {
			for i, raw := range list {
				p := &corev1.Pod{}
				if err := json.Unmarshal(raw, p); err != nil {
					return s, fmt.Errorf("pod %d of %s: %w", i, uid, err)
				}
				s.Pods[types.UID(uid)] = append(s.Pods[types.UID(uid)], p)
			}
		}
	}
	return s, nil
}

// Objects decodes a recorded outcome's Deployment and ReplicaSets.
func Objects(out *minors.Outcome) (*appsv1.Deployment, []*appsv1.ReplicaSet, error) {
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(out.Deployment, d); err != nil {
		return nil, nil, fmt.Errorf("the outcome's Deployment: %w", err)
	}
	var rss []*appsv1.ReplicaSet
	for i, raw := range out.ReplicaSets {
		rs := &appsv1.ReplicaSet{}
		if err := json.Unmarshal(raw, rs); err != nil {
			return nil, nil, fmt.Errorf("the outcome's ReplicaSet %d: %w", i, err)
		}
		rss = append(rss, rs)
	}
	return d, rss, nil
}

// Template decodes a recorded template.
func Template(raw json.RawMessage) (*corev1.PodTemplateSpec, error) {
	t := &corev1.PodTemplateSpec{}
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, fmt.Errorf("the template: %w", err)
	}
	return t, nil
}

// Encode is the inverse of [State]: s as the protocol sends it.
func Encode(s deploysync.State) (*minors.State, error) {
	st := &minors.State{Now: s.Now}
	var err error
	if st.Deployment, err = json.Marshal(s.Deployment); err != nil {
		return nil, err
	}
	for _, rs := range s.ReplicaSets {
		b, err := json.Marshal(rs)
		if err != nil {
			return nil, err
		}
		st.ReplicaSets = append(st.ReplicaSets, b)
	}
	if len(s.Pods) > 0 {
		st.Pods = map[string][]json.RawMessage{}
		for uid, list := range s.Pods {
			for _, p := range list {
				b, err := json.Marshal(p)
				if err != nil {
					return nil, err
				}
				st.Pods[string(uid)] = append(st.Pods[string(uid)], b)
			}
		}
	}
	return st, nil
}
