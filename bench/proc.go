package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procStatus holds the /proc/PID/status fields the footprint benchmark
// reports, in kB as the kernel prints them.
type procStatus struct {
	rssAnonKB int64
	vmRSSKB   int64
	threads   int64
}

func parseStatus(data []byte) (procStatus, error) {
	var st procStatus
	found := 0
	for line := range strings.Lines(string(data)) {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var dst *int64
		switch key {
		case "RssAnon":
			dst = &st.rssAnonKB
		case "VmRSS":
			dst = &st.vmRSSKB
		case "Threads":
			dst = &st.threads
		default:
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return st, fmt.Errorf("status field %s: %w", key, err)
		}
		*dst = n
		found++
	}
	if found != 3 {
		return st, errors.New("status: RssAnon, VmRSS or Threads missing")
	}
	return st, nil
}

// procStat is what the benchmarks need from /proc/PID/stat.
type procStat struct {
	state        byte
	utime, stime uint64 // clock ticks (USER_HZ)
}

// parseStat reads /proc/PID/stat. The command name (field 2) may hold
// spaces and parentheses, so fields are counted from the last ')'.
func parseStat(data []byte) (procStat, error) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return procStat{}, errors.New("stat: no command name")
	}
	fields := strings.Fields(string(data[end+1:]))
	// After the name: state is field 3, utime 14, stime 15 (1-based, proc(5)).
	if len(fields) < 13 {
		return procStat{}, fmt.Errorf("stat: %d fields after the name, want at least 13", len(fields))
	}
	st := procStat{state: fields[0][0]}
	var err error
	if st.utime, err = strconv.ParseUint(fields[11], 10, 64); err != nil {
		return procStat{}, fmt.Errorf("stat utime: %w", err)
	}
	if st.stime, err = strconv.ParseUint(fields[12], 10, 64); err != nil {
		return procStat{}, fmt.Errorf("stat stime: %w", err)
	}
	return st, nil
}

// userHZ is the unit of utime and stime: USER_HZ is 100 on every Linux
// architecture Go supports (the kernel scales to it for /proc).
const userHZ = 100

func readStatus(pid int) (procStatus, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procStatus{}, err
	}
	return parseStatus(data)
}

func readStat(pid int) (procStat, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(data)
}

// taskTotals sums, over every thread of pid, the nanoseconds on a CPU
// (schedstat, far finer than the 10 ms ticks of stat) and the context
// switches, whose count is how often the process woke up.
type taskTotals struct {
	cpuNS    uint64
	switches uint64
}

func readTaskTotals(pid int) (taskTotals, error) {
	tids, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return taskTotals{}, err
	}
	var t taskTotals
	for _, tid := range tids {
		dir := fmt.Sprintf("/proc/%d/task/%s", pid, tid.Name())
		if data, err := os.ReadFile(dir + "/schedstat"); err == nil {
			if f := strings.Fields(string(data)); len(f) > 0 {
				ns, _ := strconv.ParseUint(f[0], 10, 64)
				t.cpuNS += ns
			}
		}
		if data, err := os.ReadFile(dir + "/status"); err == nil {
			t.switches += parseSwitches(data)
		}
	}
	return t, nil
}

func parseSwitches(status []byte) uint64 {
	var n uint64
	for line := range strings.Lines(string(status)) {
		key, value, ok := strings.Cut(line, ":")
		if ok && (key == "voluntary_ctxt_switches" || key == "nonvoluntary_ctxt_switches") {
			v, _ := strconv.ParseUint(strings.TrimSpace(value), 10, 64)
			n += v
		}
	}
	return n
}

// parsePIDList reads the space-separated pids of a children file.
func parsePIDList(data []byte) []int {
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// children lists pid's children, zombies included (an entry leaves the list
// only when it is reaped). Orphans are reparented to one of the reaper's
// threads, so every thread's list is read.
func children(pid int) ([]int, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("pid %d: no tasks (gone?)", pid)
	}
	var all []int
	for _, path := range tasks {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the thread ended between the glob and the read
		}
		all = append(all, parsePIDList(data)...)
	}
	return all, nil
}
