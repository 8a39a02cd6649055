package deploysync

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/revision"
)

// rollback carries out the deprecated rollback annotation: the template of
// the requested revision (0: the previous one) replaces the Deployment's, and
// the annotation is cleared — in every case, found or not.
func (s *session) rollback(rsList []*appsv1.ReplicaSet) error {
	d := s.d
	newRS, old, err := s.getAllReplicaSetsAndSyncRevisionOrCreate(rsList)
	if err != nil {
		return err
	}
	allRSs := append(old[:len(old):len(old)], newRS)
	want, _ := revision.RollbackRequest(d)
	target, rev, err := revision.RollbackTarget(allRSs, want)
	switch {
	case errors.Is(err, revision.ErrNoLastRevision):
		s.event(corev1.EventTypeWarning, deployutil.EventRollbackRevisionNotFound, s.eventMessage(err.Error()),
			action.Because(action.RuleRollbackNoPrevious))
		s.clearRollbackTo(action.Because(action.RuleRollbackNothingPrevious))
		return nil
	case err != nil:
		s.event(corev1.EventTypeWarning, deployutil.EventRollbackRevisionNotFound, s.eventMessage(err.Error()),
			action.Because(action.RuleRollbackNotFound, action.Num("revision", rev)))
		s.clearRollbackTo(action.Because(action.RuleRollbackMissing, action.Num("revision", rev)))
		return nil
	}
	if deployutil.EqualIgnoreHash(&d.Spec.Template, &target.Spec.Template) {
		s.event(corev1.EventTypeWarning, deployutil.EventRollbackTemplateUnchanged,
			s.eventMessage(fmt.Sprintf("The rollback revision contains the same template as current deployment %q", d.Name)),
			action.Because(action.RuleRollbackUnchanged, action.Num("revision", rev), action.Str("replicaSet", target.Name)))
		s.clearRollbackTo(action.Because(action.RuleRollbackNothing))
		return nil
	}
	d.Spec.Template = revision.TemplateOf(target)
	d.Annotations = facts.RollbackAnnotations(d, target) // a new map
	s.sharedAnnots = false
	s.clearRollbackTo(action.Because(action.RuleRollbackTemplate, action.Num("revision", rev), action.Str("replicaSet", target.Name)))
	s.split = nil
	s.event(corev1.EventTypeNormal, deployutil.EventRollbackDone, s.eventMessage(fmt.Sprintf("Rolled back deployment %q to revision %d", d.Name, rev)),
		action.Because(action.RuleRollbackDone, action.Num("revision", rev)))
	return nil
}

func (s *session) clearRollbackTo(why action.Reason) {
	s.editAnnotations()
	delete(s.d.Annotations, deployutil.RollbackToAnnotation)
	s.updateDeployment(why, action.Because(action.RuleClearRollback))
}
