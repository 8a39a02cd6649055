package deploysync

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/deployutil"
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
	want, _ := revision.RollbackTo(d)
	target, rev, err := revision.RollbackTarget(allRSs, want)
	switch {
	case errors.Is(err, revision.ErrNoLastRevision):
		s.event(corev1.EventTypeWarning, deployutil.EventRollbackRevisionNotFound, s.eventMessage(err.Error()),
			"rollback to the previous revision asked, but no ReplicaSet has an earlier revision")
		s.clearRollbackTo("no previous revision to roll back to")
		return nil
	case err != nil:
		s.event(corev1.EventTypeWarning, deployutil.EventRollbackRevisionNotFound, s.eventMessage(err.Error()),
			fmt.Sprintf("rollback to revision %d asked, but no ReplicaSet has it", rev))
		s.clearRollbackTo(fmt.Sprintf("revision %d not found", rev))
		return nil
	}
	if deployutil.EqualIgnoreHash(&d.Spec.Template, &target.Spec.Template) {
		s.event(corev1.EventTypeWarning, deployutil.EventRollbackTemplateUnchanged,
			s.eventMessage(fmt.Sprintf("The rollback revision contains the same template as current deployment %q", d.Name)),
			fmt.Sprintf("revision %d (%s) has the current template", rev, target.Name))
		s.clearRollbackTo("nothing to roll back")
		return nil
	}
	d.Spec.Template = revision.TemplateOf(target)
	d.Annotations = deployutil.RollbackAnnotations(d, target)
	s.clearRollbackTo(fmt.Sprintf("roll the template back to revision %d (ReplicaSet %s) and take its annotations", rev, target.Name))
	s.split = nil
	s.event(corev1.EventTypeNormal, deployutil.EventRollbackDone, s.eventMessage(fmt.Sprintf("Rolled back deployment %q to revision %d", d.Name, rev)),
		fmt.Sprintf("the template of revision %d is back", rev))
	return nil
}

func (s *session) clearRollbackTo(why string) {
	delete(s.d.Annotations, deployutil.RollbackToAnnotation)
	s.updateDeployment(why + "; clear the rollback annotation")
}
