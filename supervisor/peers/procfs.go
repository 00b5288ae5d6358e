package peers

import (
	"io"
	"os"
	"strconv"
)

func readDirNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

func parsePID(name string) (int, bool) {
	pid, err := strconv.Atoi(name)
	return pid, err == nil && pid > 0
}

// readSmallFile reads at most 64 KiB: /proc files and status files are tiny,
// and a hostile one must not make tandem allocate without bound.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxProcFileRead))
}
