// Files an .envrc makes direnv read (red team 6's F10h): `dotenv` loads .env
// into the person's shell on every cd, and reloads it when it changes, with
// no new `direnv allow`. What it sets (GIT_CONFIG_COUNT/KEY/VALUE, PATH,
// BASH_ENV, LD_PRELOAD) runs in their next git or shell command, so such a
// file runs later like the .envrc itself. Read from the .envrc's text at each
// walk: dotenv / dotenv_if_exists [FILE] (.env by default), source_env /
// source_env_if_exists FILE (a folder: its .envrc), source_up [FILE] (the
// file of that name in each folder above), watch_file FILE…, use nix
// (shell.nix, default.nix), use flake (flake.nix, flake.lock) and use devenv
// (devenv.nix, devenv.yaml, devenv.lock, the local ones, .devenv). A path
// bunker cannot read without running the shell ($VAR, $(…)) is left out.
import { dirname, join, resolve } from "node:path";
import { isWithin } from "./workspace.ts";

/**
 * What `use devenv` (devenv's direnvrc) has devenv evaluate into the person's shell (red team 11's F17): its
 * configuration (devenv.nix runs its enterShell as them), the local overrides, the lock, the generated flake, and
 * the .devenv folder where devenv keeps its profile and evaluation cache. A folder devenv.yaml `imports` is not read.
 */
const DEVENV = ["devenv.nix", "devenv.yaml", "devenv.lock", "devenv.local.nix", "devenv.local.yaml", ".devenv.flake.nix", ".devenv"];

/** The folders `use flake [REF]` reads a flake from: the .envrc's, and a local REF's (`./nix#dev`, `path:./sub`). */
function flakeDirs(ref: string | undefined, dir: string): string[] {
  const local = ref && !ref.startsWith("-") ? /^(?:path:)?(\.{1,2}(?:\/[^#?]*)?|\/[^#?]*)(?:[#?].*)?$/.exec(ref) : null;
  return local ? [...new Set([dir, resolve(dir, local[1]!)])] : [dir];
}

/** The direnv commands that read files, and what each reads when it names none. */
const LOADERS: Record<string, (args: string[], dir: string) => string[]> = {
  dotenv: (a, d) => [resolve(d, a[0] ?? ".env")],
  dotenv_if_exists: (a, d) => [resolve(d, a[0] ?? ".env")],
  source_env: (a, d) => (a[0] ? [resolve(d, a[0]), join(resolve(d, a[0]), ".envrc")] : []),
  source_env_if_exists: (a, d) => (a[0] ? [resolve(d, a[0])] : []),
  watch_file: (a, d) => a.map((f) => resolve(d, f)),
  use: (a, d) =>
    a[0] === "nix"
      ? [resolve(d, a[1] && !a[1].startsWith("-") ? a[1] : "shell.nix"), resolve(d, "default.nix")]
      : a[0] === "flake"
        ? flakeDirs(a[1], d).flatMap((f) => [join(f, "flake.nix"), join(f, "flake.lock")])
        : a[0] === "devenv"
          ? DEVENV.map((f) => resolve(d, f))
          : [],
};

/**
 * The files (absolute) the .envrc at `envrc`, whose text is `text`, makes direnv read, up to `top` for source_up.
 * Words are split as the shell would for plain ones (quotes stripped); a line with `$` or a backquote in a path is skipped.
 */
export function envrcLoads(envrc: string, text: string, top: string): string[] {
  const dir = dirname(envrc);
  const out = new Set<string>();
  for (const [cmd, ...args] of simpleCommands(text)) {
    if (args.some((a) => /[$`]/.test(a))) continue;
    if (cmd === "source_up" || cmd === "source_up_if_exists") {
      const name = args[0] ?? ".envrc";
      for (let d = dirname(dir); isWithin(top, d); d = dirname(d)) {
        out.add(join(d, name));
        if (d === dirname(d)) break;
      }
      continue;
    }
    const loader = LOADERS[cmd!];
    if (loader) for (const f of loader(args.filter((a) => !a.startsWith("-") || cmd === "use"), dir)) out.add(f);
  }
  return [...out];
}

/**
 * Each simple command of an .envrc as its words (`dotenv; watch_file x`, `[ -f .env ] && dotenv`), split as the
 * shell would for plain ones, quotes stripped; comments dropped.
 */
export function simpleCommands(text: string): string[][] {
  const out: string[][] = [];
  for (const raw of text.split("\n")) {
    for (const part of raw.replace(/(^|\s)#.*$/, "").split(/&&|\|\||;/)) {
      const words = part.trim().split(/\s+/).filter(Boolean).map((w) => w.replace(/^(["'])(.*)\1$/, "$2"));
      if (words.length > 0) out.push(words);
    }
  }
  return out;
}
