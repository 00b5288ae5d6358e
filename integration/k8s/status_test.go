//go:build k8s

package k8s

import (
	"encoding/json"
	"time"
)

// The parts of the API objects the tests read.

type job struct {
	Metadata objectMeta `json:"metadata"`
	Status   struct {
		Conditions []struct {
			Type, Status, Reason, Message string
		} `json:"conditions"`
		Active, Succeeded, Failed int
	} `json:"status"`
}

// end is "Complete" or "Failed" once the Job has ended, else "".
func (j job) end() string {
	for _, c := range j.Status.Conditions {
		if (c.Type == "Complete" || c.Type == "Failed") && c.Status == "True" {
			return c.Type
		}
	}
	return ""
}

type objectMeta struct {
	Name        string            `json:"name"`
	UID         string            `json:"uid"`
	Annotations map[string]string `json:"annotations"`
}

type pod struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		InitContainers []containerSpec `json:"initContainers"`
		Containers     []containerSpec `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase                 string            `json:"phase"`
		ContainerStatuses     []containerStatus `json:"containerStatuses"`
		InitContainerStatuses []containerStatus `json:"initContainerStatuses"`
	} `json:"status"`
}

type containerSpec struct {
	Name          string   `json:"name"`
	Command       []string `json:"command"`
	Args          []string `json:"args"`
	RestartPolicy string   `json:"restartPolicy"`
}

// spec returns the spec of a container or init container.
func (p pod) spec(name string) (containerSpec, bool) {
	for _, c := range append(p.Spec.Containers, p.Spec.InitContainers...) {
		if c.Name == name {
			return c, true
		}
	}
	return containerSpec{}, false
}

type containerStatus struct {
	Name         string `json:"name"`
	RestartCount int    `json:"restartCount"`
	ContainerID  string `json:"containerID"`
	State        struct {
		Running *struct {
			StartedAt time.Time `json:"startedAt"`
		} `json:"running"`
		Terminated *terminated `json:"terminated"`
		Waiting    *struct {
			Reason string `json:"reason"`
		} `json:"waiting"`
	} `json:"state"`
	LastState struct {
		Terminated *terminated `json:"terminated"`
	} `json:"lastState"`
}

type terminated struct {
	ExitCode   int       `json:"exitCode"`
	Reason     string    `json:"reason"`
	Message    string    `json:"message"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
}

// container returns the status of a container or init container.
func (p pod) container(name string) (containerStatus, bool) {
	for _, cs := range append(p.Status.ContainerStatuses, p.Status.InitContainerStatuses...) {
		if cs.Name == name {
			return cs, true
		}
	}
	return containerStatus{}, false
}

func (cs containerStatus) running() bool { return cs.State.Running != nil }

func (cs containerStatus) exitCode() (int, bool) {
	if cs.State.Terminated == nil {
		return 0, false
	}
	return cs.State.Terminated.ExitCode, true
}

type podList struct {
	Items []pod `json:"items"`
}

func decodeJSON[T any](data string) (T, error) {
	var v T
	err := json.Unmarshal([]byte(data), &v)
	return v, err
}
