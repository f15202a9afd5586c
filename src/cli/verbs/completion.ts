import { UsageError } from "../core/errors.js";
import { writeOut } from "../core/terminal.js";

const COMPLETION_USAGE = `Usage: mcpwire completion bash|zsh|fish

Prints a completion script for your shell: verbs, options, and the server names of ./.mcp.json
after --server. Install it with, for instance:
  bash:  mcpwire completion bash > ~/.local/share/bash-completion/completions/mcpwire
  zsh:   mcpwire completion zsh > "\${fpath[1]}/_mcpwire"
  fish:  mcpwire completion fish > ~/.config/fish/completions/mcpwire.fish
`;

const VERBS = [
  "discover",
  "call",
  "task",
  "read",
  "prompt",
  "raw",
  "skills",
  "shell",
  "gateway",
  "tap",
  "replay",
  "servers",
  "auth",
  "completion",
];
const OPTIONS = [
  "--era",
  "--header",
  "--timeout",
  "--json",
  "--verbose",
  "--help",
  "--config",
  "--server",
  "--input",
  "--send-env",
  "--env",
  "--env-from",
  "--inherit-env",
  "--listen",
  "--stdio",
  "--out",
  "--elicit",
  "--decline",
  "--sample-text",
  "--sample-file",
  "--root",
  "--bearer",
  "--bearer-file",
  "--client-id",
  "--client-secret",
  "--client-metadata-url",
  "--scope",
  "--grant",
  "--paste",
  "--device",
  "--no-browser",
  "--to",
  "--force",
  "--all",
];
/** The server names of ./.mcp.json, found with node (always there: mcpwire runs on it). */
const SERVER_NAMES =
  `node -p 'try{const c=JSON.parse(require("fs").readFileSync(".mcp.json","utf8"));` +
  `Object.keys(c.mcpServers||c.servers||{}).join("\\n")}catch{""}' 2>/dev/null`;

const BASH = `# bash completion for mcpwire
_mcpwire() {
  local cur prev
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
    --era) COMPREPLY=($(compgen -W "modern legacy auto" -- "$cur")); return ;;
    --server) COMPREPLY=($(compgen -W "$(${SERVER_NAMES})" -- "$cur")); return ;;
    --config|--env-from|--out|--sample-file|--token-file|--bearer-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    completion) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;
  esac
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${VERBS.join(" ")} --help --version" -- "$cur"))
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "${OPTIONS.join(" ")}" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _mcpwire mcpwire
`;

const ZSH = `#compdef mcpwire
# zsh completion for mcpwire
_mcpwire() {
  if (( CURRENT == 2 )); then
    compadd -- ${VERBS.join(" ")} --help --version
    return
  fi
  case "\${words[CURRENT-1]}" in
    --era) compadd -- modern legacy auto; return ;;
    --server) compadd -- \${(f)"$(${SERVER_NAMES})"}; return ;;
    --config|--env-from|--out|--sample-file|--token-file|--bearer-file) _files; return ;;
    completion) compadd -- bash zsh fish; return ;;
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    compadd -- ${OPTIONS.join(" ")}
  else
    _files
  fi
}
compdef _mcpwire mcpwire
`;

const FISH = `# fish completion for mcpwire
complete -c mcpwire -f
complete -c mcpwire -n __fish_use_subcommand -a "${VERBS.join(" ")}"
${OPTIONS.map((option) => `complete -c mcpwire -l ${option.slice(2)}`).join("\n")}
complete -c mcpwire -s e -d "KEY=VALUE for a stdio server"
complete -c mcpwire -l era -x -a "modern legacy auto"
complete -c mcpwire -l server -x -a "(${SERVER_NAMES})"
complete -c mcpwire -l config -r -F
complete -c mcpwire -l env-from -r -F
complete -c mcpwire -n "__fish_seen_subcommand_from completion" -a "bash zsh fish"
`;

const SCRIPTS: Record<string, string> = { bash: BASH, zsh: ZSH, fish: FISH };

export async function runCompletion(argv: readonly string[]): Promise<number> {
  const [shell, extra] = argv;
  if (shell === "--help" || shell === "-h") {
    writeOut(COMPLETION_USAGE);
    return 0;
  }
  const script = shell === undefined ? undefined : SCRIPTS[shell];
  if (script === undefined || extra !== undefined) {
    throw new UsageError("usage: mcpwire completion bash|zsh|fish");
  }
  writeOut(script);
  return 0;
}
