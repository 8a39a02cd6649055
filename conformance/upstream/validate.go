package upstream

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install" // apps/v1 ↔ internal conversions
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // the pod template's conversions
)

// Accepts reports whether an apps/v1 apiserver of v1.37.2 holds such a
// state: the Deployment and every ReplicaSet pass upstream's own validation
// (ValidateDeployment and ValidateDeploymentStatus, ValidateReplicaSet and
// ValidateReplicaSetStatus, as the registry's create and status strategies
// call them) on the internal types they convert to, and the state is a
// snapshot of one namespace (ReplicaSet names and UIDs unique, every
// ReplicaSet in the Deployment's namespace).
//
// The objects are validated as they are, without defaulting: a generated
// state stands for objects an apiserver already defaulted and stored. For
// the same reason a Deployment whose rollback.to annotation the apiserver
// would rewrite (the conversion parses it into spec.rollbackTo and prints it
// back: "+5" becomes "5", "" disappears) is refused: no cluster holds it.
//
// Pods are checked by their metadata only (name, namespace, owner
// references): the sync reads nothing else of a pod, and upstream finds a
// pod's ReplicaSet by its controller reference, whatever key the state's
// map files it under.
func Accepts(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) (bool, field.ErrorList) {
	var errs field.ErrorList
	if d == nil {
		return false, field.ErrorList{field.Required(field.NewPath("deployment"), "the state needs a Deployment")}
	}
	errs = append(errs, validateDeployment(d)...)
	if d.UID == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "uid"), "an apiserver gives every object it stores a uid"))
	}
	names := map[string]bool{}
	uids := map[types.UID]bool{}
	for i, rs := range rss {
		p := field.NewPath("replicaSets").Index(i)
		if rs == nil {
			errs = append(errs, field.Required(p, "nil ReplicaSet"))
			continue
		}
		if names[rs.Name] {
			errs = append(errs, field.Duplicate(p.Child("metadata", "name"), rs.Name))
		}
		if uids[rs.UID] {
			errs = append(errs, field.Duplicate(p.Child("metadata", "uid"), rs.UID))
		}
		names[rs.Name], uids[rs.UID] = true, true
		if rs.UID == "" {
			errs = append(errs, field.Required(p.Child("metadata", "uid"), "an apiserver gives every object it stores a uid"))
		}
		if rs.Namespace != d.Namespace {
			errs = append(errs, field.Invalid(p.Child("metadata", "namespace"), rs.Namespace, "not the Deployment's namespace"))
		}
		errs = append(errs, prefixed(p, validateReplicaSet(rs))...)
	}
	podNames := map[string]bool{}
	for uid, list := range pods {
		for i, po := range list {
			p := field.NewPath("pods").Key(string(uid)).Index(i)
			if po == nil {
				errs = append(errs, field.Required(p, "nil pod"))
				continue
			}
			if podNames[po.Name] {
				errs = append(errs, field.Duplicate(p.Child("metadata", "name"), po.Name))
			}
			podNames[po.Name] = true
			if po.Namespace != d.Namespace {
				errs = append(errs, field.Invalid(p.Child("metadata", "namespace"), po.Namespace, "not the Deployment's namespace"))
			}
			errs = append(errs, prefixed(p, validatePodMeta(po))...)
		}
	}
	return len(errs) == 0, errs
}

func validateDeployment(d *appsv1.Deployment) field.ErrorList {
	var in apps.Deployment
	if err := legacyscheme.Scheme.Convert(d, &in, nil); err != nil {
		// The conversion parses the rollback.to annotation into
		// spec.rollbackTo; an apiserver fails the request when it cannot.
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations"), d.Annotations, fmt.Sprintf("converting to the internal type: %v", err))}
	}
	opts := pod.GetValidationOptionsFromPodTemplate(&in.Spec.Template, nil)
	errs := appsvalidation.ValidateDeployment(&in, opts)
	errs = append(errs, appsvalidation.ValidateDeploymentStatus(&in.Status, field.NewPath("status"))...)
	// What the apiserver stores is the internal object converted back: the
	// rollback.to annotation in its canonical form, or none.
	v, had := d.Annotations[appsv1.DeprecatedRollbackTo]
	if in.Spec.RollbackTo != nil {
		if stored := strconv.FormatInt(in.Spec.RollbackTo.Revision, 10); stored != v {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(appsv1.DeprecatedRollbackTo), v, "an apiserver stores it as "+strconv.Quote(stored)))
		}
	} else if had {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(appsv1.DeprecatedRollbackTo), v, "an apiserver drops it"))
	}
	return errs
}

func validateReplicaSet(rs *appsv1.ReplicaSet) field.ErrorList {
	var in apps.ReplicaSet
	if err := legacyscheme.Scheme.Convert(rs, &in, nil); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), rs.Name, fmt.Sprintf("converting to the internal type: %v", err))}
	}
	opts := pod.GetValidationOptionsFromPodTemplate(&in.Spec.Template, nil)
	errs := appsvalidation.ValidateReplicaSet(&in, opts)
	return append(errs, appsvalidation.ValidateReplicaSetStatus(in.Status, field.NewPath("status"))...)
}

// validatePodMeta is the metadata part of pod validation: a DNS subdomain
// name, a namespace, well-formed owner references with one controller at
// most.
func validatePodMeta(p *corev1.Pod) field.ErrorList {
	return apimachineryvalidation.ValidateObjectMetaAccessor(p, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
}

// prefixed puts each error's field under p (the object's place in the
// state).
func prefixed(p *field.Path, errs field.ErrorList) field.ErrorList {
	for _, e := range errs {
		e.Field = p.String() + "." + e.Field
	}
	return errs
}
