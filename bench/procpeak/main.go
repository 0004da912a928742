// Command procpeak runs a command and reports, per kind of process in its
// tree, the peak resident set (VmHWM) and the CPU time, for bench/scale.sh:
// GNU time's maximum RSS of a process tree is that of its largest process,
// which hides whether the command or a provider grew.
//
//	go run ./bench/procpeak -o FILE -- pier apply --dir D
//
// It appends one line to FILE (or prints it):
//
//	wall=S cpu=S KIND.rss=KiB KIND.anon=KiB KIND.cpu=S ...
//
// wall is the command's wall-clock time and cpu its user+system time with
// every descendant it waited for (exact, from wait4). Reading /proc every
// 10 ms is not free: for pier's tree of eight processes it costs about 0.4
// s of CPU a second, and on two cores that slows the command down (a fresh
// plan of 1000 time_static: 0.84-0.91 s alone, 1.04-1.23 s watched;
// OpenTofu's two processes 1.19-1.23 s and 1.30-1.34 s). -watch=false
// measures only wall and cpu, with nothing else running. Each KIND (command,
// the root process; local, postgres, terraform: `pier adapter NAME`; hold:
// `pier tf hold`; else the executable's base name) gets the largest VmHWM
// of its processes (rss), the largest anonymous part of a resident set
// seen (anon: the rest is file pages, mostly the executable's, shared by
// every process that runs it) and the sum of their CPU, read from /proc every
// 10 ms while they run, so a descendant's last milliseconds may be missed;
// the command's own cpu is the exact total less its descendants' (at
// least what they had used by the last poll), so it errs high, not low.
// Nothing here is a test: it measures.
package main

import (
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ticks is the kernel's clock ticks per second (USER_HZ), 100 on Linux.
const ticks = 100

type proc struct {
	kind string
	rss  int64   // KiB, VmHWM
	anon int64   // KiB, the largest RssAnon seen
	cpu  float64 // seconds, self only
}

func main() {
	out := flag.String("o", "", "append the result line to this file (default stdout)")
	watch := flag.Bool("watch", true, "read each process's memory and CPU from /proc every 10 ms; with -watch=false only wall and cpu are measured, and the command runs undisturbed")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: procpeak [-o FILE] -- CMD ARGS...")
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	root := cmd.Process.Pid
	rootCmdline = cmdline(root)
	seen := map[int]*proc{}
	var rootChildCPU float64 // the root's waited-for children, from its stat
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var werr error
	if !*watch {
		werr = <-done
	}
poll:
	for *watch {
		for _, pid := range tree(root) {
			// A child is forked as a copy of its parent and execs
			// later, so its kind is read again on every poll.
			k := kind(pid, pid == root)
			if k == "" {
				continue
			}
			p := seen[pid]
			if p == nil {
				p = &proc{}
				seen[pid] = p
			}
			p.kind = k
			rss, anon := memory(pid)
			p.rss = max(p.rss, rss)
			p.anon = max(p.anon, anon)
			self, children, ok := cpu(pid)
			if ok {
				p.cpu = self
				if pid == root {
					rootChildCPU = children
				}
			}
		}
		select {
		case werr = <-done:
			break poll
		case <-tick.C:
		}
	}
	wall := time.Since(start).Seconds()
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	total := tv(ru.Utime) + tv(ru.Stime)
	if p := seen[root]; p != nil {
		// wait4's total holds the root and every descendant it waited
		// for; what the root's children had used at the last poll is
		// in rootChildCPU, so the root's own is at least total minus
		// its children's final use, which the children's samples bound.
		var kids float64
		for pid, q := range seen {
			if pid != root {
				kids += q.cpu
			}
		}
		if kids < rootChildCPU {
			kids = rootChildCPU
		}
		if own := total - kids; own > p.cpu {
			p.cpu = own
		}
		if r := ru.Maxrss; r > p.rss && len(seen) == 1 {
			p.rss = r
		}
	}
	kinds := map[string]*proc{}
	for _, p := range seen {
		k := kinds[p.kind]
		if k == nil {
			k = &proc{kind: p.kind}
			kinds[p.kind] = k
		}
		k.rss = max(k.rss, p.rss)
		k.anon = max(k.anon, p.anon)
		k.cpu += p.cpu
	}
	names := slices.Sorted(maps.Keys(kinds))
	line := fmt.Sprintf("wall=%.3f cpu=%.3f", wall, total)
	for _, n := range names {
		line += fmt.Sprintf(" %s.rss=%d %s.anon=%d %s.cpu=%.3f", n, kinds[n].rss, n, kinds[n].anon, n, kinds[n].cpu)
	}
	if *out == "" {
		fmt.Println(line)
	} else {
		f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Fprintln(f, line)
		f.Close()
	}
	if werr != nil {
		if ee, ok := werr.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		log.Fatal(werr)
	}
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// tree lists root and its descendants, through each thread's children.
func tree(root int) []int {
	out := []int{root}
	for i := 0; i < len(out); i++ {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", out[i]))
		for _, t := range tasks {
			b, err := os.ReadFile(t)
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					out = append(out, pid)
				}
			}
		}
	}
	return out
}

// rootCmdline is the root's command line: a child that still has it was
// forked and has not exec'd yet, and is not counted (its pages are the
// root's).
var rootCmdline string

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return string(b)
}

func kind(pid int, isRoot bool) string {
	if isRoot {
		return "command"
	}
	c := cmdline(pid)
	if c == "" || c == rootCmdline {
		return ""
	}
	args := strings.Split(strings.TrimRight(c, "\x00"), "\x00")
	if len(args) >= 3 && args[1] == "adapter" {
		return args[2]
	}
	if len(args) >= 3 && args[1] == "tf" && args[2] == "hold" {
		return "hold"
	}
	return filepath.Base(args[0])
}

// memory reads a process's peak resident set (VmHWM) and its anonymous
// part now (RssAnon), in KiB. The rest of the resident set is file pages,
// mostly the executable's own, which every process running the same
// binary shares: RssAnon is what the process itself costs.
func memory(pid int) (hwm, anon int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	kib := func(v string) int64 {
		n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		return n
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			hwm = kib(v)
		} else if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
			anon = kib(v)
		}
	}
	return hwm, anon
}

// cpu reads a process's own user+system time and that of its waited-for
// children from /proc/PID/stat.
func cpu(pid int) (self, children float64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime, stime, cutime, cstime are fields 14–17.
	if len(f) < 15 {
		return 0, 0, false
	}
	n := func(j int) float64 { v, _ := strconv.ParseFloat(f[j-3], 64); return v / ticks }
	return n(14) + n(15), n(16) + n(17), true
}
