// The keys of a package.json that run on the person's next commit, as a
// .lintstagedrc does (red team 10's O4): lint-staged's "lint-staged" (its
// most common home), husky v4's "husky" ({"hooks": {"pre-commit": …}}, read
// by the hook husky installed at every commit), yorkie's "gitHooks", and
// simple-git-hooks' "simple-git-hooks" (copied into .git/hooks at the next
// install), commitlint's "commitlint" (its extends and plugins load code at
// every commit-msg hook: reviewer's R13-07), and the scripts the hooks run
// (red team 13's F10). The rest of package.json is project code, as the other
// scripts are: a command that edits dependencies goes on working. So the file stays
// writable; after a command, a change to one of these keys is undone in
// place (the person's value put back, the rest of the command's edit kept),
// and the command's whole file is kept beside it to look at.
import { hookKeyCommands, manifestObject } from "../perms/hook-programs.ts";
import { existsSync, readFileSync, readlinkSync, statSync, type Stats } from "node:fs";
import { relative } from "node:path";
import { renameEntry, replaceFile } from "../fs/no-follow.ts";
import { shellQuote } from "../shell/quote.ts";
import { escapeControl } from "../ui/escape.ts";

/** The keys whose value git's commit runs (through the hook a package installed). */
export const HOOK_KEYS = ["lint-staged", "husky", "gitHooks", "simple-git-hooks", "commitlint"] as const;

/**
 * The most of a package.json read (a larger one is no project's manifest). One a command made larger, or changed
 * while larger, is set aside whole: its keys cannot be checked, and lint-staged and husky read any size (red team 13's
 * F02: 4.2 MB of blanks after a new "lint-staged" key had the check skip the file).
 */
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * A package.json before a command: its hook keys, which file it was (null: not there, or not a regular file), and
 * where it led when it was a link (null: no link).
 */
export interface ManifestBefore {
  keys: Record<string, string>;
  file: string | null;
  link: string | null;
  /** The scripts the repository's hooks run, whose keys were read too. */
  scripts: readonly string[];
}

/** Which file, at which change: the device, inode, size and change time (a write moves the last; no command sets it back). */
function fileId(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.ctimeMs}`;
}

/**
 * Each hook key's value in a package.json as JSON text (absent keys left out), and of each script the repository's
 * hooks run (`scripts`: their names; as "scripts.NAME"); null when it is no JSON object.
 */
export function hookKeys(text: string, scripts: readonly string[] = []): Record<string, string> | null {
  const parsed = manifestObject(text);
  if (parsed === null) return null;
  const out: Record<string, string> = {};
  for (const key of HOOK_KEYS) if (Object.hasOwn(parsed, key)) out[key] = JSON.stringify(parsed[key]);
  const table = parsed.scripts;
  if (scripts.includes(ALL_SCRIPTS) && table !== undefined) out.scripts = JSON.stringify(table);
  if (table !== null && typeof table === "object" && !Array.isArray(table)) {
    for (const name of scripts) if (name !== ALL_SCRIPTS && Object.hasOwn(table, name)) out[`scripts.${name}`] = JSON.stringify((table as Record<string, unknown>)[name]);
  }
  return out;
}

/**
 * What the monorepo task runners a hook calls run of the packages' scripts, by name (reviewer's R13-13): `turbo run
 * NAME` / `turbo NAME`, `nx run-many -t NAME` / `nx affected -t` / `nx run PROJECT:NAME`, `lerna run NAME`,
 * `npm-run-all` / `run-s` / `run-p` NAMES (a glob: every script), `concurrently "npm:NAME"`.
 */
function taskRunnerScripts(words: string[]): string[] {
  const out: string[] = [];
  const name = (w: string) => {
    if (/[*?{]/.test(w)) out.push(ALL_SCRIPTS);
    else if (/^[\w:.@/-]+$/.test(w)) out.push(w, `pre${w}`, `post${w}`);
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const rest = words.slice(i + 1).filter((x) => !x.startsWith("-"));
    if (w === "turbo") {
      const first = rest[0] === "run" ? rest.slice(1) : rest;
      for (const x of first) name(x);
    } else if (w === "nx") {
      const t = words.findIndex((x, k) => k > i && (x === "-t" || x === "--target" || x === "--targets"));
      if (t >= 0 && words[t + 1]) for (const x of words[t + 1]!.split(",")) name(x);
      for (const x of words.slice(i + 1)) if (/^--targets?=/.test(x)) for (const y of x.slice(x.indexOf("=") + 1).split(",")) name(y);
      if (rest[0] === "run" && rest[1]?.includes(":")) name(rest[1].split(":")[1]!);
    } else if (w === "lerna" && rest[0] === "run" && rest[1]) name(rest[1]);
    else if (w === "npm-run-all" || w === "run-s" || w === "run-p") for (const x of rest) name(x);
    else if (w === "concurrently") for (const x of rest) if (/^(npm|pnpm|yarn|bun):/.test(x)) name(x.slice(x.indexOf(":") + 1));
  }
  return out;
}

/** The scripts the commands in a package.json's hook keys run (every string in them: hook-programs.ts reads them). */
function scriptsInHookKeys(text: string): string[] {
  const commands = hookKeyCommands(text, HOOK_KEYS);
  return commands === null ? [] : scriptsRunBy(commands);
}

/** The keys compared for a package.json: the hook packages' own, and the scripts the hooks run. */
function keysOf(scripts: readonly string[]): string[] {
  return [...HOOK_KEYS, ...scripts.map((n) => (n === ALL_SCRIPTS ? "scripts" : `scripts.${n}`))];
}

/** npm's own commands that run the script of their name (`npm test`, `npm t`), by the name. */
const NPM_RUNS: Record<string, string> = { test: "test", t: "test", tst: "test", start: "start", stop: "stop", restart: "restart" };
/** What an install runs of the package's own scripts (npm, pnpm, yarn and bun alike), and `npm it` its test too. */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"];
const INSTALLS = new Set(["install", "i", "ci", "it", "cit", "install-test", "install-ci-test", "clean-install", "add"]);
/** Commands of the package managers that run none of the package's scripts (`pnpm exec`, `yarn why`). */
const NOT_SCRIPTS = new Set(["audit", "bin", "build", "cache", "config", "create", "dedupe", "dlx", "exec", "import", "info", "init", "link", "list", "ls", "outdated", "pack", "patch", "pm", "prune", "publish", "remove", "rm", "root", "set", "setup", "store", "unlink", "up", "update", "upgrade", "version", "why", "workspaces", "x", "x", "help"]);
/** Options that take the next word as their value (a folder, a package filter), which is no command. */
const VALUE_OPTIONS = new Set(["--prefix", "-C", "--dir", "--filter", "-F", "--cwd", "-w", "--workspace", "--cd"]);
/** The whole `scripts` table: a hook line runs a script bunker cannot tell (`npm run "$TASK"`). */
export const ALL_SCRIPTS = "*";

/**
 * The package.json scripts a hook's text runs (red team 13's F10: `npm test` in husky's pre-commit runs
 * scripts.test at every commit): `npm test`/`npm run NAME`, `pnpm NAME`, `yarn NAME`, `bun NAME`, `yarn workspace W
 * NAME`, with the pre- and post- scripts npm runs around each; an install's lifecycle scripts; ALL_SCRIPTS when the
 * name is not one bunker can read (reviewer's R13-01: the safe side, not none).
 */
export function scriptsRunBy(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    if (/^\s*#/.test(line)) continue;
    const words = line.split(/[\s;&|()`"']+/).filter(Boolean);
    for (const n of taskRunnerScripts(words)) out.add(n);
    for (let i = 0; i < words.length; i++) {
      const tool = words[i]!;
      if (tool !== "npm" && tool !== "pnpm" && tool !== "yarn" && tool !== "bun") continue;
      let j = i + 1;
      const next = () => {
        while (j < words.length && words[j]!.startsWith("-")) j += VALUE_OPTIONS.has(words[j]!.split("=")[0]!) && !words[j]!.includes("=") ? 2 : 1;
        return words[j++];
      };
      let verb = next();
      // Bare `yarn` installs.
      if (verb === undefined) {
        if (tool === "yarn") for (const n of INSTALL_SCRIPTS) out.add(n);
        continue;
      }
      if (tool === "yarn" && verb === "workspace") {
        next();
        verb = next();
        if (verb === undefined) continue;
      }
      if (INSTALLS.has(verb)) {
        for (const n of INSTALL_SCRIPTS) out.add(n);
        if (verb === "it" || verb === "cit" || verb.endsWith("-test")) for (const n of ["test", "pretest", "posttest"]) out.add(n);
        continue;
      }
      let name: string | undefined;
      if (verb === "run" || verb === "run-script" || verb === "rum" || verb === "urn") {
        name = next();
        if (name === undefined) continue;
      } else if (tool === "npm") name = NPM_RUNS[verb];
      else if (!NOT_SCRIPTS.has(verb)) name = verb;
      if (name === undefined) continue;
      if (!/^[\w:.@/-]+$/.test(name)) {
        out.add(ALL_SCRIPTS);
        continue;
      }
      for (const n of [name, `pre${name}`, `post${name}`]) out.add(n);
    }
  }
  return [...out];
}

/** What a change of a package.json's text from `before` to `after` runs later (its hook keys changed), or null. */
export function hookKeysChange(before: string, after: string, hookScripts: readonly string[] = []): string | null {
  // With the scripts the repository's hooks run and those its own hook keys name (reviewer's R13-14: edit_file changed
  // scripts.test, run by the hook's `npm test`, without a question under --allow-write).
  const scripts = [...new Set([...hookScripts, ...scriptsInHookKeys(before), ...scriptsInHookKeys(after)])];
  const now = hookKeys(after, scripts);
  if (now === null) return null;
  const was = hookKeys(before, scripts) ?? {};
  const changed = keysOf(scripts).filter((k) => now[k] !== was[k]);
  if (changed.length === 0) return null;
  const names = changed.map((k) => `"${k}"`).join(", ");
  return changed.some((k) => k === "scripts" || k.startsWith("scripts."))
    ? `${names} runs on your next git commit (your git hooks run it)`
    : `${names} runs on your next git commit (lint-staged, husky or a git hooks package), like a .lintstagedrc`;
}

/** A package.json's stat (through a link too, as the tools read it) when it is a regular file, else null. */
function statManifest(path: string): Stats | null {
  try {
    const st = statSync(path);
    return st.isFile() ? st : null;
  } catch {
    return null;
  }
}

/** A package.json's text when it is a regular file of a sane size, else null. */
function readManifest(path: string, st: Stats | null): string | null {
  if (st === null || st.size > MAX_BYTES) return null;
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/**
 * The hook keys of each package.json before a command (with the scripts the repository's hooks run: `scripts`), and
 * which file it was (one no tool can parse has none).
 */
export function hookKeysBefore(paths: readonly string[], scripts: readonly string[] = []): Map<string, ManifestBefore> {
  const out = new Map<string, ManifestBefore>();
  for (const p of paths) {
    const st = statManifest(p);
    const text = readManifest(p, st);
    // With the scripts its own hook keys' commands run (`"lint-staged": {"*.js": "npm run fmt"}`: reviewer's R13-08).
    const all = text === null ? scripts : [...new Set([...scripts, ...scriptsInHookKeys(text)])];
    out.set(p, { keys: (text !== null && hookKeys(text, all)) || {}, file: st ? fileId(st) : null, link: linkOf(p), scripts: all });
  }
  return out;
}

/** `text` with the hook keys as `before` had them (a key the command added removed), in the file's own indentation. */
export function withKeysOf(text: string, before: Record<string, string>, scripts: readonly string[] = []): string | null {
  const obj = manifestObject(text);
  if (obj === null) return null;
  for (const key of HOOK_KEYS) {
    if (before[key] !== undefined) obj[key] = JSON.parse(before[key]);
    else delete obj[key];
  }
  if (scripts.includes(ALL_SCRIPTS)) {
    // The person's whole table back (a script a hook runs could not be told apart).
    if (before.scripts !== undefined) obj.scripts = JSON.parse(before.scripts);
    else delete obj.scripts;
  } else if (scripts.length > 0) {
    const table = obj.scripts !== null && typeof obj.scripts === "object" && !Array.isArray(obj.scripts) ? (obj.scripts as Record<string, unknown>) : {};
    for (const name of scripts) {
      const was = before[`scripts.${name}`];
      if (was !== undefined) table[name] = JSON.parse(was);
      else delete table[name];
    }
    if (Object.keys(table).length > 0 || obj.scripts !== undefined) obj.scripts = table;
  }
  const indent = /^[{[]\r?\n([ \t]+)/.exec(text)?.[1] ?? "  ";
  return JSON.stringify(obj, null, indent) + (text.endsWith("\n") ? "\n" : "");
}

/**
 * After a command: each package.json (there before, or new) whose hook keys it changed gets the person's keys back
 * (the rest of the command's edit kept), and the command's whole file is kept as PATH.bunker-set-aside; one line each.
 */
export function restoreHookKeys(root: string, before: ReadonlyMap<string, ManifestBefore>, after: readonly string[]): string[] {
  const lines: string[] = [];
  for (const path of new Set([...before.keys(), ...after])) {
    const had = before.get(path);
    let aside = `${path}.bunker-set-aside`;
    for (let n = 2; existsSync(aside) || linkOf(aside) !== null; n++) aside = `${path}.bunker-set-aside-${n}`;
    const shown = relative(root, path) || path;
    // A link the command made (or re-aimed) is set aside unread: read on the host, it could lead to any file of the
    // person's, which the set-aside copy would then have put in the workspace (red team 13's F07: ~/.docker/config.json).
    const link = linkOf(path);
    if (link !== null && link !== had?.link) {
      lines.push(setAsideLink(root, path, aside, shown, link));
      continue;
    }
    const st = statManifest(path);
    if (st === null) continue;
    if (st.size > MAX_BYTES) {
      // The person's own large file, untouched by the command, is theirs; one the command wrote cannot be checked.
      if (had?.file !== fileId(st)) lines.push(setAsideWhole(root, path, aside, shown, st.size));
      continue;
    }
    const text = readManifest(path, st);
    if (text === null) continue;
    const scripts = had?.scripts ?? scriptsOf(before);
    const now = hookKeys(text, scripts);
    // Not JSON any more: no tool reads its keys, so nothing in it runs.
    if (now === null) continue;
    const was = had?.keys ?? {};
    const changed = keysOf(scripts).filter((k) => now[k] !== was[k]);
    if (changed.length === 0) continue;
    const restored = withKeysOf(text, was, scripts);
    if (restored === null) continue;
    const names = changed.map((k) => `"${k}"`).join(", ");
    try {
      replaceFile(aside, text);
      replaceFile(path, restored);
    } catch (e) {
      lines.push(`bunker could not undo the command's change to ${names} in ${shown} (${(e as Error).message}): that key runs on your next git commit; check it before committing`);
      continue;
    }
    const runBy = changed.some((k) => k === "scripts" || k.startsWith("scripts.")) ? "run on your next git commit by your git hooks" : "run on your next git commit by lint-staged, husky or a git hooks package, like a .lintstagedrc";
    lines.push(`bunker undid the command's change to ${names} in ${shown} (${runBy}); the rest of its edit is kept. The command's whole file is ${relative(root, aside)}; to take its version after checking it: mv ${shellQuote(relative(root, aside))} ${shellQuote(shown)}`);
  }
  return lines;
}

/** A package.json the command left too big to check: moved aside whole, so nothing in it runs at the next commit. */
function setAsideWhole(root: string, path: string, aside: string, shown: string, size: number): string {
  const mb = (size / 1024 / 1024).toFixed(1);
  try {
    renameEntry(path, aside);
  } catch (e) {
    return `bunker could not set aside ${shown}, which the command changed and left ${mb} MB, too big to check its keys that run on your next git commit (${(e as Error).message}); check it before committing`;
  }
  return `bunker set aside ${shown}: the command changed it and left it ${mb} MB, too big to check its keys that run on your next git commit (lint-staged, husky or a git hooks package read any size). To take it after checking it: mv ${shellQuote(relative(root, aside))} ${shellQuote(shown)}`;
}

/** Where the link at `path` leads, or null when it is no link. */
function linkOf(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** A package.json the command made a link: moved aside (the link, not what it leads to), unread. */
function setAsideLink(root: string, path: string, aside: string, shown: string, target: string): string {
  const to = escapeControl(target);
  try {
    renameEntry(path, aside);
  } catch (e) {
    return `bunker could not set aside ${shown}, a link the command made to ${to} (${(e as Error).message}): lint-staged, husky or a git hooks package read it at your next git commit; check it before committing`;
  }
  return `bunker set aside ${shown}, a link the command made to ${to} (lint-staged, husky or a git hooks package read what it leads to at your next git commit; bunker did not read it). To take it after checking it: mv ${shellQuote(relative(root, aside))} ${shellQuote(shown)}`;
}

/** The scripts the hooks run, as read before the command (the same for every package.json of one look). */
function scriptsOf(before: ReadonlyMap<string, ManifestBefore>): readonly string[] {
  for (const b of before.values()) return b.scripts;
  return [];
}
