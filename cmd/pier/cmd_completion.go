package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// The bash and zsh scripts ask pier itself for the candidates, through
// urfave/cli's hidden --generate-bash-completion flag, so they never go
// stale as commands and flags change.
const bashCompletion = `# bash completion for pier: eval "$(pier completion bash)"
_pier_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n'
  local words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  [[ $cur == -* ]] && words+=("$cur")
  COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${words[@]}" --generate-bash-completion 2>/dev/null)" -- "$cur"))
}
complete -o bashdefault -o default -F _pier_complete pier
`

const zshCompletion = `#compdef pier
# zsh completion for pier: pier completion zsh > "${fpath[1]}/_pier"
_pier() {
  local -a candidates words_before
  words_before=("${(@)words[2,CURRENT-1]}")
  [[ ${words[CURRENT]} == -* ]] && words_before+=("${words[CURRENT]}")
  candidates=("${(@f)$(${words[1]} "${(@)words_before}" --generate-bash-completion 2>/dev/null)}")
  compadd -a candidates
  _files
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _pier "$@"
else
  compdef _pier pier
fi
`

func newCompletionCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: `Prints a script that completes pier's commands and flags:
   bash:  eval "$(pier completion bash)"   (e.g. in ~/.bashrc)
   zsh:   pier completion zsh > "${fpath[1]}/_pier"
   fish:  pier completion fish > ~/.config/fish/completions/pier.fish

Exit codes: 0 printed, 64 usage.`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion takes one argument: bash, zsh or fish")
			}
			return runCompletion(c.App, c.Args().First(), g.stdout)
		},
	}
}

func runCompletion(app *cli.App, shell string, stdout io.Writer) error {
	switch shell {
	case "bash":
		_, err := io.WriteString(stdout, bashCompletion)
		return err
	case "zsh":
		_, err := io.WriteString(stdout, zshCompletion)
		return err
	case "fish":
		s, err := app.ToFishCompletion()
		if err != nil {
			return fmt.Errorf("write the fish completion: %w", err)
		}
		_, err = io.WriteString(stdout, s)
		return err
	}
	return usagef("completion: unknown shell %q; want bash, zsh or fish", shell)
}
