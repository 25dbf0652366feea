// The files a hook or a runs-later config runs by a literal path (red team 8's
// F16): `.husky/pre-commit` saying `sh scripts/precommit.sh` runs that script
// on the person's next commit, so the script runs later as the hook does.
// Read from the text alone, pragmatically, as words that look like a path to
// something run: `./x` or `../x`, a name with a script's extension
// (`scripts/x.sh`, `lint.py`, `tools/check.mjs`), or a path with a `/` where a
// command starts (`tools/hooks/x`, `entry: bin/lint`, `"command": "ci/x"`). A
// word with `$`, a backquote or a glob is left out (bunker cannot know what it
// names without running it), and so is what a package manager or a tool
// finds by itself (`npm run lint`, `npx eslint`): that runs project code, whatever it is.

/** Extensions of files an interpreter runs (or a JVM loads): a word ending in one names a script. */
const SCRIPT_EXT = /\.(sh|bash|zsh|fish|ksh|py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|rb|pl|pm|php|lua|tcl|r|ps1|bat|cmd|jar|nix|awk|sed)$/i;

/** What ends one command and starts another (shell separators, a YAML key's colon, a JSON or TOML string's quote, `=`). */
const STARTERS = /(?:&&|\|\||[;|&(){}"'\n:,[\]]|\bthen\b|\bdo\b|\belse\b|\bexec\b|\bsource\b|(?:^|\s)\.(?=\s))/;

/** A variable, a command substitution, or a backquoted one, with the path it begins: what it names is not known. */
const EXPANDED = /(\$\([^)]*\)|\$\{[^}]*\}|\$\w+|\$.|`[^`]*`)[\w@+.~/-]*/g;

/** A word that may be a path: no variable, command substitution, glob, URL or option. */
const PATHLIKE = /^(\/(?!\/))?[\w@+.~-][\w@+.~/-]*$/;

/** At most this many paths are taken from one file (a generated config is not a list of scripts). */
const MAX_PATHS = 200;

/**
 * The literal relative (or absolute) paths `text` names that look like files it runs, as written (`./x`,
 * `scripts/x.sh`); the caller resolves them against the folders they may be read from.
 */
export function namedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    // A comment line (shell, YAML, TOML) names nothing that runs; a `#!` line names the interpreter.
    if (/^\s*(#|\/\/)/.test(line)) continue;
    // Each piece between separators: its first word is where a command starts.
    for (const piece of line.replace(EXPANDED, " $ ").split(STARTERS)) {
      const words = piece.trim().split(/\s+/).filter(Boolean);
      words.forEach((word, i) => {
        // `--require=./x.js`, `node-options=…`: the value after `=` (an option's value is no command).
        const eq = word.lastIndexOf("=");
        if (eq !== -1) i = -1;
        const w = word.slice(eq + 1).replace(/^\.\/+/, "./");
        if (!PATHLIKE.test(w) || w.startsWith("-") || w.startsWith("~")) return;
        const explicit = w.startsWith("./") || w.startsWith("../");
        const script = SCRIPT_EXT.test(w) && !/(^|\/)\.*$/.test(w.replace(SCRIPT_EXT, ""));
        const command = i === 0 && w.includes("/") && !w.endsWith("/");
        if (explicit || script || command) out.add(w);
      });
      if (out.size >= MAX_PATHS) return [...out];
    }
  }
  return [...out];
}

/** Whether a file a hook runs is itself a shell script (whose own literal paths are followed in turn). */
export function isShellScript(path: string, text: string): boolean {
  return /\.(sh|bash|zsh|ksh)$/i.test(path) || /^#!\s*\S*\/(env\s+)?(ba|z|k|da)?sh\b/.test(text);
}
