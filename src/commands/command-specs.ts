/**
 * The words and help texts of `ratelimit`, `config`, `completion` and `verify`, shared by their
 * definitions (commands/<name>-command.ts) and their run modules (commands/<name>.ts) from this leaf:
 * a definition loads its run module lazily (so `--help` loads none of their code), and a run module
 * importing its definition would close an import cycle.
 */
import { CONFIG_KEYS } from '../config/flags.js';
import { COMPLETION_EXIT_CODES, CONFIG_EXIT_CODES, exitCodesHelp, RATELIMIT_EXIT_CODES, SAMPLE_IDS, VERIFY_EXIT_CODES } from './help-text.js';

/** The sub-commands of `config` (`config` alone shows every profile: commands/config.ts `runConfigOverview`). */
export type ConfigAction = 'set' | 'get' | 'unset' | 'list' | 'profiles' | 'path';

/** Every {@link ConfigAction}, for commander and completion. */
export const CONFIG_ACTIONS: readonly ConfigAction[] = ['set', 'get', 'unset', 'list', 'profiles', 'path'];

/** The config actions that take a key as their first argument (completion offers the keys after them). */
export const CONFIG_KEY_ACTIONS: readonly ConfigAction[] = ['set', 'get', 'unset'];

/** The shells a completion script can be generated for. */
export type CompletionShell = 'bash' | 'zsh' | 'fish';

/** Every {@link CompletionShell}. */
export const COMPLETION_SHELLS: readonly CompletionShell[] = ['bash', 'zsh', 'fish'];

/** Help text of `config` (commander `addHelpText('after', …)`). */
export const CONFIG_HELP = `
Keys: ${CONFIG_KEYS.join(', ')}

Settings are stored per profile (--profile NAME or COLLECTIONS_PROFILE; default "default") in a
file only you can read (mode 0600). A key stored in a profile is only sent to that profile's own
base URL. \`config set api-key\` without a value prompts for it without echo (or reads one line
from standard input when it is not a terminal), which keeps the key out of your shell history.

\`config\` alone prints every profile and its settings (the key masked, ****abcd); \`config list\`
prints one profile's; \`config profiles\` prints the profile names, one a line; \`config path\`
prints where the file is.

Examples:
  $ collections config set base-url https://api.example.com
  $ collections config set api-key
  $ printf '%s\\n' "$KEY" | collections config set api-key --profile sandbox
  $ collections config
  $ collections config profiles
${exitCodesHelp(CONFIG_EXIT_CODES)}`;

/** Help text of `ratelimit` (commander `addHelpText('after', …)`). */
export const RATELIMIT_HELP = `
Each check sends one request (itemsPerPage=1) to every endpoint the ids allow, and so spends one
request of that endpoint's quota. entities and events are always checked; --taxpayer adds invoices,
taxpayer line items and payments; --invoice adds the invoice's line items; both add the line items
of that taxpayer's invoice. A 429 is shown, not waited on. --cached sends nothing: it shows the
last values any command saw, with their age.

Examples:
  $ collections ratelimit
  $ collections ratelimit --taxpayer PEIC211118IS0 --invoice ${SAMPLE_IDS.invoiceId}
  $ collections ratelimit --cached
  $ collections ratelimit --json | jq '.[] | select(.remaining == 0)'
${exitCodesHelp(RATELIMIT_EXIT_CODES)}`;

/** Help text of `completion` (commander `addHelpText('after', …)`). */
export const COMPLETION_HELP = `
Examples:
  $ collections completion bash > ~/.local/share/bash-completion/completions/collections
  $ collections completion zsh > "\${fpath[1]}/_collections"
  $ collections completion fish > ~/.config/fish/completions/collections.fish
${exitCodesHelp(COMPLETION_EXIT_CODES)}`;

/** Help text of `verify` (commander `addHelpText('after', …)`). */
export const VERIFY_HELP = `
Each completed file export writes F.manifest.json beside F (or --manifest FILE). verify re-reads
every output a manifest names (relative to the manifest's folder) and checks its size, its SHA-256
and its items: lines for ndjson, the array's length for json, records after the header for csv
(quoted line breaks included), on the decompressed bytes of a gzip output (.gz, --compress gzip).
Each whole output prints one ok line on stdout; each mismatch (missing, size, SHA-256, items)
prints one line on stderr.

Examples:
  $ collections verify invoices.ndjson.manifest.json
  $ collections verify exports/*.manifest.json && echo "all whole"
${exitCodesHelp(VERIFY_EXIT_CODES)}`;
