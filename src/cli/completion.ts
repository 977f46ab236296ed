// `shopfloor completion bash|zsh`: a completion script made from the same command specs as the
// help, so it cannot drift from what is parsed. zsh loads the bash script through bashcompinit
// (the completion system zsh ships for bash scripts), so both shells complete the same words.
import { PROCESS_COMMANDS } from './client/help.ts'
import { ENTRIES, GLOBAL_OPTIONS, isGroup, optionsOf } from './client/registry.ts'
import { RUNNER_USAGE } from '../runner/options.ts'

const flags = (options: readonly { name: string }[]) => options.map((o) => `--${o.name}`).join(' ')
const quoted = (words: string) => `"${words}"`

function bashScript(): string {
  const top = [...PROCESS_COMMANDS.map((c) => c.name), ...ENTRIES.map((e) => e.name)].join(' ')
  const subcommands: string[] = []
  const options: string[] = []
  for (const entry of ENTRIES) {
    if (isGroup(entry)) {
      subcommands.push(`    ${entry.name}) words=${quoted(entry.commands.map((c) => c.name).join(' '))} ;;`)
      for (const command of entry.commands) options.push(`    "${entry.name} ${command.name}") words=${quoted(flags(optionsOf(command)))} ;;`)
    } else {
      options.push(`    "${entry.name} "*) words=${quoted(flags(optionsOf(entry)))} ;;`)
    }
  }
  subcommands.push('    completion) words="bash zsh" ;;', '    admin) words="users members" ;;')
  const runnerFlags = [...new Set(RUNNER_USAGE.match(/--[a-z0-9-]+/g))].join(' ')
  options.push(`    "runner "*) words=${quoted(`${runnerFlags} --help`)} ;;`, '    "scheduler "*) words="--refresh-seconds --help" ;;',
    '    "serve "*|"mcp "*) words="--help" ;;')
  return `# shopfloor completion for bash: eval "$(shopfloor completion bash)" (or save it in
# /etc/bash_completion.d/shopfloor)
_shopfloor() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="\${COMP_WORDS[1]}" sub="\${COMP_WORDS[2]}" words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    words=${quoted(`${top} --help --version`)}
  elif [[ "$cur" == -* ]]; then
    [ "$COMP_CWORD" -eq 2 ] && sub=""
    case "$cmd $sub" in
${options.join('\n')}
    esac
    case "$cmd" in
      serve|scheduler|runner|mcp|admin|completion|version) ;;
      *) words="$words ${flags(GLOBAL_OPTIONS)}" ;;
    esac
  elif [ "$COMP_CWORD" -eq 2 ]; then
    case "$cmd" in
${subcommands.join('\n')}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _shopfloor shopfloor
`
}

/** The script for a shell; undefined for a shell it does not know. */
export function completionScript(shell: string | undefined): string | undefined {
  if (shell === 'bash') return bashScript()
  if (shell === 'zsh') {
    return `#compdef shopfloor
# shopfloor completion for zsh: eval "$(shopfloor completion zsh)" in ~/.zshrc (after compinit)
autoload -U +X bashcompinit && bashcompinit
${bashScript()}`
  }
  return undefined
}
