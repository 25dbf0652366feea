// The keys of a package.json that run on the person's next commit, as a
// .lintstagedrc does (red team 10's O4): lint-staged's "lint-staged" (its
// most common home), husky v4's "husky" ({"hooks": {"pre-commit": …}}, read
// by the hook husky installed at every commit), yorkie's "gitHooks", and
// simple-git-hooks' "simple-git-hooks" (copied into .git/hooks at the next
// install). The rest of package.json is project code, as its scripts are: a
// command that edits dependencies goes on working. So the file stays
// writable; after a command, a change to one of these keys is undone in
// place (the person's value put back, the rest of the command's edit kept),
// and the command's whole file is kept beside it to look at.
import { existsSync, readFileSync, statSync } from "node:fs";
import { relative } from "node:path";
import { replaceFile } from "../fs/no-follow.ts";
import { shellQuote } from "../shell/quote.ts";

/** The keys whose value git's commit runs (through the hook a package installed). */
export const HOOK_KEYS = ["lint-staged", "husky", "gitHooks", "simple-git-hooks"] as const;

/** The most of a package.json read (a larger one is no project's manifest). */
const MAX_BYTES = 4 * 1024 * 1024;

/** Each hook key's value in a package.json as JSON text (absent keys left out); null when it is no JSON object. */
export function hookKeys(text: string): Record<string, string> | null {
  let parsed: unknown;
  try {
    // (Without a byte-order mark, which the tools' readers strip.)
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const out: Record<string, string> = {};
  for (const key of HOOK_KEYS) if (Object.hasOwn(parsed, key)) out[key] = JSON.stringify((parsed as Record<string, unknown>)[key]);
  return out;
}

/** What a change of a package.json's text from `before` to `after` runs later (its hook keys changed), or null. */
export function hookKeysChange(before: string, after: string): string | null {
  const now = hookKeys(after);
  if (now === null) return null;
  const was = hookKeys(before) ?? {};
  const changed = HOOK_KEYS.filter((k) => now[k] !== was[k]);
  return changed.length ? `${changed.map((k) => `"${k}"`).join(", ")} runs on your next git commit (lint-staged, husky or a git hooks package), like a .lintstagedrc` : null;
}

/** A package.json's text (through a link too, as the tools read it) when it is a regular file of a sane size, else null. */
function readManifest(path: string): string | null {
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > MAX_BYTES) return null;
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** The hook keys of each package.json before a command (a path → its keys; one no tool can parse counts as none). */
export function hookKeysBefore(paths: readonly string[]): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const p of paths) {
    const text = readManifest(p);
    out.set(p, (text !== null && hookKeys(text)) || {});
  }
  return out;
}

/** `text` with the hook keys as `before` had them (a key the command added removed), in the file's own indentation. */
export function withKeysOf(text: string, before: Record<string, string>): string | null {
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
  } catch {
    return null;
  }
  for (const key of HOOK_KEYS) {
    if (before[key] !== undefined) obj[key] = JSON.parse(before[key]);
    else delete obj[key];
  }
  const indent = /^[{[]\r?\n([ \t]+)/.exec(text)?.[1] ?? "  ";
  return JSON.stringify(obj, null, indent) + (text.endsWith("\n") ? "\n" : "");
}

/**
 * After a command: each package.json (there before, or new) whose hook keys it changed gets the person's keys back
 * (the rest of the command's edit kept), and the command's whole file is kept as PATH.bunker-set-aside; one line each.
 */
export function restoreHookKeys(root: string, before: ReadonlyMap<string, Record<string, string>>, after: readonly string[]): string[] {
  const lines: string[] = [];
  for (const path of new Set([...before.keys(), ...after])) {
    const text = readManifest(path);
    if (text === null) continue;
    const now = hookKeys(text);
    // Not JSON any more: no tool reads its keys, so nothing in it runs.
    if (now === null) continue;
    const was = before.get(path) ?? {};
    const changed = HOOK_KEYS.filter((k) => now[k] !== was[k]);
    if (changed.length === 0) continue;
    const restored = withKeysOf(text, was);
    if (restored === null) continue;
    let aside = `${path}.bunker-set-aside`;
    for (let n = 2; existsSync(aside); n++) aside = `${path}.bunker-set-aside-${n}`;
    const shown = relative(root, path) || path;
    const names = changed.map((k) => `"${k}"`).join(", ");
    try {
      replaceFile(aside, text);
      replaceFile(path, restored);
    } catch (e) {
      lines.push(`bunker could not undo the command's change to ${names} in ${shown} (${(e as Error).message}): that key runs on your next git commit; check it before committing`);
      continue;
    }
    lines.push(`bunker undid the command's change to ${names} in ${shown} (run on your next git commit by lint-staged, husky or a git hooks package, like a .lintstagedrc); the rest of its edit is kept. The command's whole file is ${relative(root, aside)}; to take its version after checking it: mv ${shellQuote(relative(root, aside))} ${shellQuote(shown)}`);
  }
  return lines;
}
