package supervisor

import (
	"slices"

	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// reasonOf is the done file's word for how CMD ended.
func reasonOf(st process.Status) string {
	if st.Signal != 0 {
		return statusfile.ReasonSignaled
	}
	return statusfile.ReasonExited
}

// reportedCode applies --success-code: a listed code is reported as 0.
func reportedCode(code int, successCodes []int) int {
	if slices.Contains(successCodes, code) {
		return 0
	}
	return code
}
