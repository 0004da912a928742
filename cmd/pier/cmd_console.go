package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/pierhq/pier/host/inspect"
)

func newConsoleCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "console",
		Usage: "evaluate expressions interactively against the deployment and its recorded state",
		Description: `Reads expressions one per line and prints each value, as pier eval does,
against a snapshot of state read once at start. On a terminal it has line
editing (arrows, Ctrl-A/E, Ctrl-K/U/W, Alt-arrows by word) and
history (Up/Down), kept in $XDG_STATE_HOME/pier/console_history (0600).
exit, quit or Ctrl-D leave. Not on a terminal, it reads standard input and
prints one value per line.

Exit codes: 0 done, 1 error (state could not be read), 64 usage.`,
		Flags: deployFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("console takes no arguments")
			}
			return runConsole(c.Context, readDeployOptions(c), g.stdin, g.stdout, g.stderr)
		},
	}
}

const consolePrompt = "> "

func runConsole(ctx context.Context, o deployOptions, stdin *os.File, stdout, stderr io.Writer) error {
	d, err := openSession(o, stderr)
	if err != nil {
		return err
	}
	in, err := d.Inspector(ctx)
	if err != nil {
		return err
	}
	if !term.IsTerminal(int(stdin.Fd())) {
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if !consoleLine(in, sc.Text(), o.JSON, stdout, stdout) {
				break
			}
		}
		return sc.Err()
	}
	// x/term gives line editing and history without a new dependency; it
	// is maintained with Go itself. Raw mode also means Ctrl-C reaches
	// ReadLine as a key (it ends the console) rather than as SIGINT.
	old, err := term.MakeRaw(int(stdin.Fd()))
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	defer term.Restore(int(stdin.Fd()), old)
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{stdin, stdout}, consolePrompt)
	if w, h, err := term.GetSize(int(stdin.Fd())); err == nil {
		_ = t.SetSize(w, h)
	}
	hist := openHistory()
	t.History = hist
	fmt.Fprintf(t, "pier console: %s. Type an expression, or exit.\r\n", d.Name())
	for {
		line, err := t.ReadLine()
		if errors.Is(err, io.EOF) {
			fmt.Fprint(t, "\r\n")
			return hist.save()
		}
		if err != nil {
			return err
		}
		if !consoleLine(in, line, o.JSON, t, t) {
			return hist.save()
		}
	}
}

// consoleLine evaluates one line; it returns false when the user asked to
// leave.
func consoleLine(in *inspect.Inspector, line string, asJSON bool, out, errOut io.Writer) bool {
	line = strings.TrimSpace(line)
	switch line {
	case "":
		return true
	case "exit", "quit":
		return false
	}
	r := in.Eval(line)
	writeEvalResult(out, asJSON, r)
	if r.Diagnostics.HasErrors() && !asJSON {
		fmt.Fprintln(errOut, "error: "+diagnosticsText(r.Diagnostics))
	}
	return true
}

// consoleHistory is a bounded history kept in a file between sessions.
type consoleHistory struct {
	path    string
	entries []string // oldest first
}

const maxHistory = 500

func openHistory() *consoleHistory {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".local", "state")
		}
	}
	h := &consoleHistory{}
	if dir == "" {
		return h
	}
	h.path = filepath.Join(dir, "pier", "console_history")
	if data, err := os.ReadFile(h.path); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" {
				h.entries = append(h.entries, l)
			}
		}
	}
	return h
}

func (h *consoleHistory) Add(e string) {
	e = strings.TrimSpace(e)
	if e == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == e) {
		return
	}
	h.entries = append(h.entries, e)
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
}

func (h *consoleHistory) Len() int { return len(h.entries) }

func (h *consoleHistory) At(i int) string { return h.entries[len(h.entries)-1-i] }

func (h *consoleHistory) save() error {
	if h.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("save console history: %w", err)
	}
	data := strings.Join(h.entries, "\n") + "\n"
	if err := os.WriteFile(h.path, []byte(data), 0o600); err != nil {
		return fmt.Errorf("save console history: %w", err)
	}
	return nil
}
