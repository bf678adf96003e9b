package main

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// started is when this process started: the summary line's "in N ms" is
// the whole command's time, what a user waits for, not the part from the
// build's first step to its last (starting the process, opening the
// cache, swapping the site in and removing the old one are a third of a
// warm build). Where the kernel does not tell it (Linux's /proc, in
// clock ticks of 10 ms), it is when this package was initialised, after
// the runtime and every package this one imports.
var started = processStart(time.Now())

func processStart(now time.Time) time.Time {
	running, ok := runningFor()
	if !ok || running < 0 || running > time.Minute { // not this process's times
		return now
	}
	return now.Add(-running)
}

// runningFor is how long this process has run, as the kernel counts it.
func runningFor() (time.Duration, bool) {
	stat, err1 := os.ReadFile("/proc/self/stat")
	up, err2 := os.ReadFile("/proc/uptime")
	if err1 != nil || err2 != nil {
		return 0, false
	}
	ticks, ok := startTicks(stat)
	if !ok {
		return 0, false
	}
	uptime, err := strconv.ParseFloat(string(bytes.Fields(up)[0]), 64)
	if err != nil {
		return 0, false
	}
	const ticksPerSecond = 100 // USER_HZ, the same on every Linux architecture Go runs on
	return time.Duration((uptime - float64(ticks)/ticksPerSecond) * float64(time.Second)), true
}

// startTicks is the start time in /proc/self/stat, in ticks since boot.
func startTicks(stat []byte) (int64, bool) {
	// The command's name, in parentheses, may hold spaces: fields are
	// counted after its closing one, where the state is field 3 and the
	// start time, in ticks since boot, field 22.
	fields := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	if len(fields) < 20 {
		return 0, false
	}
	ticks, err := strconv.ParseInt(string(fields[19]), 10, 64)
	return ticks, err == nil
}
