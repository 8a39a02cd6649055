package kubectl

import (
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func (p *printer) volumes(vs []corev1.Volume) {
	if len(vs) == 0 {
		p.w(0, "  Volumes:\t<none>\n")
		return
	}
	p.w(0, "  Volumes:\n")
	for i := range vs {
		v := &vs[i]
		p.w(1, " %v:\n", v.Name)
		if !p.volume(&v.VolumeSource) {
			p.undescribed(fmt.Sprintf("spec.volumes[%d].%s", i, sourceField(&v.VolumeSource)))
			return
		}
	}
}

// volume prints a volume source as kubectl does; false for a source not
// rendered here. kubectl takes the first source set in its order.
func (p *printer) volume(s *corev1.VolumeSource) bool {
	const l = 2
	switch {
	case s.HostPath != nil:
		t := "<none>"
		if s.HostPath.Type != nil {
			t = string(*s.HostPath.Type)
		}
		p.w(l, "Type:\tHostPath (bare host directory volume)\n    Path:\t%v\n    HostPathType:\t%v\n", s.HostPath.Path, t)
	case s.EmptyDir != nil:
		size := "<unset>"
		if q := s.EmptyDir.SizeLimit; q != nil && q.Cmp(resource.Quantity{}) > 0 {
			size = q.String()
		}
		p.w(l, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t%v\n    SizeLimit:\t%v\n", s.EmptyDir.Medium, size)
	case s.GCEPersistentDisk != nil:
		g := s.GCEPersistentDisk
		p.w(l, "Type:\tGCEPersistentDisk (a Persistent Disk resource in Google Compute Engine)\n    PDName:\t%v\n    FSType:\t%v\n    Partition:\t%v\n    ReadOnly:\t%v\n",
			g.PDName, g.FSType, g.Partition, g.ReadOnly)
	case s.AWSElasticBlockStore != nil:
		a := s.AWSElasticBlockStore
		p.w(l, "Type:\tAWSElasticBlockStore (a Persistent Disk resource in AWS)\n    VolumeID:\t%v\n    FSType:\t%v\n    Partition:\t%v\n    ReadOnly:\t%v\n",
			a.VolumeID, a.FSType, a.Partition, a.ReadOnly)
	case s.GitRepo != nil:
		p.w(l, "Type:\tGitRepo (a volume that is pulled from git when the pod is created)\n    Repository:\t%v\n    Revision:\t%v\n", s.GitRepo.Repository, s.GitRepo.Revision)
	case s.Secret != nil:
		p.w(l, "Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t%v\n    Optional:\t%v\n", s.Secret.SecretName, isTrue(s.Secret.Optional))
	case s.ConfigMap != nil:
		p.w(l, "Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t%v\n    Optional:\t%v\n", s.ConfigMap.Name, isTrue(s.ConfigMap.Optional))
	case s.NFS != nil:
		p.w(l, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n    Server:\t%v\n    Path:\t%v\n    ReadOnly:\t%v\n", s.NFS.Server, s.NFS.Path, s.NFS.ReadOnly)
	case s.ISCSI != nil, s.Glusterfs != nil:
		return false
	case s.PersistentVolumeClaim != nil:
		p.w(l, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    ClaimName:\t%v\n    ReadOnly:\t%v\n",
			s.PersistentVolumeClaim.ClaimName, s.PersistentVolumeClaim.ReadOnly)
	case s.Ephemeral != nil, s.RBD != nil, s.Quobyte != nil:
		return false
	case s.DownwardAPI != nil:
		p.w(l, "Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n")
		for _, it := range s.DownwardAPI.Items {
			if it.FieldRef != nil {
				p.w(3, "%v -> %v\n", it.FieldRef.FieldPath, it.Path)
			}
			if it.ResourceFieldRef != nil {
				p.w(3, "%v -> %v\n", it.ResourceFieldRef.Resource, it.Path)
			}
		}
	case s.AzureDisk != nil, s.VsphereVolume != nil, s.Cinder != nil, s.PhotonPersistentDisk != nil, s.PortworxVolume != nil,
		s.ScaleIO != nil, s.CephFS != nil, s.StorageOS != nil, s.FC != nil, s.AzureFile != nil, s.FlexVolume != nil, s.Flocker != nil:
		return false
	case s.Projected != nil:
		for _, src := range s.Projected.Sources {
			if src.Secret == nil && src.DownwardAPI == nil && src.ConfigMap == nil && src.ServiceAccountToken != nil && src.ServiceAccountToken.ExpirationSeconds == nil {
				return false // kubectl dereferences the nil expirationSeconds
			}
		}
		p.w(l, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
		for _, src := range s.Projected.Sources {
			switch {
			case src.Secret != nil:
				p.w(l, "SecretName:\t%v\n    Optional:\t%v\n", src.Secret.Name, isTrue(src.Secret.Optional))
			case src.DownwardAPI != nil:
				p.w(l, "DownwardAPI:\ttrue\n")
			case src.ConfigMap != nil:
				p.w(l, "ConfigMapName:\t%v\n    Optional:\t%v\n", src.ConfigMap.Name, isTrue(src.ConfigMap.Optional))
			case src.ServiceAccountToken != nil:
				p.w(l, "TokenExpirationSeconds:\t%d\n", *src.ServiceAccountToken.ExpirationSeconds)
			}
		}
	case s.CSI != nil:
		fsType := ""
		if s.CSI.FSType != nil {
			fsType = *s.CSI.FSType
		}
		p.w(l, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n    Driver:\t%v\n    FSType:\t%v\n    ReadOnly:\t%v\n", s.CSI.Driver, fsType, isTrue(s.CSI.ReadOnly))
		p.csiAttributes(s.CSI.VolumeAttributes)
	case s.Image != nil:
		p.w(l, "Type:\tImage (a container image or OCI artifact)\n    Reference:\t%v\n    PullPolicy:\t%v\n", s.Image.Reference, s.Image.PullPolicy)
	default:
		p.w(1, "<unknown>\n")
	}
	return true
}

// csiAttributes prints kubectl's layout: the first attribute after the
// title, each later one on a line that starts with an indented tab.
func (p *printer) csiAttributes(attrs map[string]string) {
	p.w(2, "VolumeAttributes:\t")
	if len(attrs) == 0 {
		p.b.WriteString("<none>\n")
		return
	}
	for i, k := range sortedKeys(attrs, "") {
		if i != 0 {
			p.w(2, "")
			p.w(2, "\t")
		}
		line := fmt.Sprintf("%s=%s", k, attrs[k])
		if len(line) > maxAnnotationLen {
			line = line[:maxAnnotationLen] + "..."
		}
		p.w(2, "%s\n", line)
	}
}

// sourceField names the JSON field of the first volume source set, for
// errors.
func sourceField(s *corev1.VolumeSource) string {
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			tag := v.Type().Field(i).Tag.Get("json")
			for j := 0; j < len(tag); j++ {
				if tag[j] == ',' {
					return tag[:j]
				}
			}
			return tag
		}
	}
	return "volumeSource"
}
