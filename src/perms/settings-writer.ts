// Writes an answer the person chose to keep ("always allow `npm run lint`
// commands") into a settings file, as the entries the file already takes
// (`run:npm run lint *`), added to its "allow" list. Everything else in the
// file stays as it was (its keys, their order, its other entries); a file
// that does not parse is left alone and the reason comes back, so a typo in
// it is never overwritten. Written atomically, through a link to where it
// leads (a settings file kept in a dotfiles repository stays a link).
import { realpathSync } from "node:fs";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { FileKindError, readRegularSync } from "../fs/file-kind.ts";
import { JsonSyntaxError, parseJsonWithPositions } from "./settings-json.ts";

/** The rules-file entry for a session prefix: the prefix's words, and any arguments after them. */
export function runRuleFor(prefix: string): string {
  return `run:${prefix.trim()} *`;
}

export type SaveOutcome = { saved: true; file: string; added: string[] } | { saved: false; file: string; why: string };

/**
 * Adds `entries` to the "allow" list of `file` (made, with its folder, when missing); entries already there are not
 * added twice. With `workspace`: to that workspace's own list, `"workspaces": {"/its/path": {"allow": [...]}}`, which
 * only bunker started in that folder reads (reviewer's R11-14: an always-allow answered in one project reached all).
 */
export function addAllowRules(file: string, entries: readonly string[], workspace?: string): SaveOutcome {
  let target = file;
  try {
    target = realpathSync(file);
  } catch {
    // Not there yet: made below.
  }
  let text: string | null;
  try {
    text = readRegularSync(target, target, { max: 1024 * 1024, follow: true })?.bytes.toString("utf8") ?? null;
  } catch (err) {
    if (err instanceof FileKindError) return { saved: false, file, why: err.message };
    return { saved: false, file, why: err instanceof Error ? err.message : String(err) };
  }
  let settings: Record<string, unknown> = {};
  if (text !== null && text.trim() !== "") {
    try {
      const value = parseJsonWithPositions(text).value;
      if (typeof value !== "object" || value === null || Array.isArray(value)) return { saved: false, file, why: "it is not a JSON object" };
      settings = value as Record<string, unknown>;
    } catch (err) {
      if (err instanceof JsonSyntaxError) return { saved: false, file, why: `it is not valid JSON (line ${err.position.line}, column ${err.position.col}: ${err.message})` };
      throw err;
    }
  }
  // Where the entries go: the file's top level, or its workspace's object under "workspaces".
  const workspaces = settings.workspaces ?? {};
  if (workspace !== undefined && (typeof workspaces !== "object" || workspaces === null || Array.isArray(workspaces))) return { saved: false, file, why: `its "workspaces" is not an object` };
  const own = workspace === undefined ? settings : ((workspaces as Record<string, unknown>)[workspace] ?? {});
  if (typeof own !== "object" || own === null || Array.isArray(own)) return { saved: false, file, why: `its "workspaces" entry for ${workspace} is not an object` };
  const scope = own as Record<string, unknown>;
  const allow = scope.allow ?? [];
  if (!Array.isArray(allow)) return { saved: false, file, why: `its "allow" is not a list` };
  const added = entries.filter((e, i) => !allow.includes(e) && entries.indexOf(e) === i);
  if (added.length === 0) return { saved: true, file, added };
  // A copy with the same key order; one without "allow" gets it first, where a reader looks.
  const withAllow = (from: Record<string, unknown>): Record<string, unknown> => {
    const next: Record<string, unknown> = "allow" in from ? {} : { allow: [] };
    for (const key of Object.keys(from)) next[key] = from[key];
    next.allow = [...allow, ...added];
    return next;
  };
  const next = workspace === undefined ? withAllow(settings) : { ...settings, workspaces: { ...(workspaces as Record<string, unknown>), [workspace]: withAllow(scope) } };
  try {
    writeFileAtomic(target, `${JSON.stringify(next, null, 2)}\n`, { mkdirs: true, ...(text === null ? { mode: 0o600 } : {}) });
  } catch (err) {
    return { saved: false, file, why: err instanceof Error ? err.message : String(err) };
  }
  return { saved: true, file, added };
}
