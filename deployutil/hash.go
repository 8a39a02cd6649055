package deployutil

import (
	"encoding/binary"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/dump"
)

// ComputeHash returns the pod-template-hash of a template, byte-identical to
// kube-controller-manager v1.37.2:
//
//  1. FNV-32a over the go-spew dump of the template value that
//     k8s.io/utils/dump.ForHash prints (every field, nil and empty maps
//     distinguished, map keys sorted);
//  2. if collisionCount is not nil, 8 more bytes: its uint32 little-endian,
//     then 4 zero bytes (so nil and 0 differ);
//  3. the decimal digits of the sum, each mapped to a consonant or digit by
//     k8s.io/apimachinery/pkg/util/rand.SafeEncodeString.
//
// The result depends on the exact Go types of k8s.io/api v0.37.2 and on the
// template's in-memory shape: hash templates as an apiserver returns them.
// A user needs it to predict the name of the ReplicaSet a rollout will
// create (with [ReplicaSetName]) or to check a ReplicaSet's hash label.
func ComputeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnvString(fnvOffset32, dump.ForHash(*template))
	if collisionCount != nil {
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:4], uint32(*collisionCount))
		h = fnvString(h, string(b[:]))
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h), 10))
}

// FNV-1a, 32 bits (hash/fnv's New32a), over a string without copying it to
// a byte slice first: the dump is a few kilobytes per hash.
const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
)

func fnvString(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime32
	}
	return h
}

// ReplicaSetName returns the name of a Deployment's ReplicaSet for a hash:
// "<deployment>-<hash>", with the Deployment name cut short if the whole
// would exceed 253 characters. The hash is never cut. With [ComputeHash] it
// names the ReplicaSet a plan creates, so a user can look it up or build it
// in a test.
func ReplicaSetName(deploymentName, hash string) string {
	room := validation.DNS1123SubdomainMaxLength - 1 - len(hash)
	if len(deploymentName) > room && room > 0 {
		deploymentName = deploymentName[:room]
	}
	return deploymentName + "-" + hash
}
