// The error for a path that does not exist, with the near names the model
// most likely meant: the same name elsewhere in the workspace, or a similar
// name in the same directory (a typo, another extension, another case).
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, extname, relative } from "node:path";
import type { ResolvedPath } from "../perms/workspace.ts";
import { isWithin } from "../perms/workspace.ts";
import { ToolError } from "./tool.ts";
import { walk } from "./walk.ts";
import { typoDistance } from "../text/typos.ts";

const MAX_SUGGESTIONS = 5;
/** The search for the same name elsewhere stops after this many entries. */
const MAX_ENTRIES_SEARCHED = 20_000;

export function notFoundError(root: string, path: ResolvedPath, allowed: (abs: string) => boolean): ToolError {
  const near = suggestNearNames(root, path.real, allowed);
  let message = `${path.display} does not exist`;
  const parent = dirname(path.real);
  if (allowed(parent) && !isDirectory(parent)) message += ` (nor does its directory ${shown(root, parent)})`;
  if (near.length > 0) message += `. Did you mean: ${near.join(", ")}?`;
  return new ToolError(message);
}

/** Display paths of existing entries that look like `missing`, best first. */
export function suggestNearNames(root: string, missing: string, allowed: (abs: string) => boolean): string[] {
  const name = basename(missing);
  const found = new Set<string>();

  const parent = dirname(missing);
  if (isDirectory(parent) && allowed(parent)) {
    const similar = listNames(parent)
      .map((n) => ({ n, d: nameDistance(name, n) }))
      .filter((c) => c.d <= maxDistance(name))
      .sort((a, b) => a.d - b.d || (a.n < b.n ? -1 : 1));
    for (const c of similar) found.add(shown(root, `${parent}/${c.n}`));
  }

  if (found.size < MAX_SUGGESTIONS && isWithin(root, missing)) {
    const lower = name.toLowerCase();
    let seen = 0;
    try {
      for (const entry of walk({ start: root, root, allowed })) {
        if (++seen > MAX_ENTRIES_SEARCHED || found.size >= MAX_SUGGESTIONS) break;
        if (entry.name.toLowerCase() === lower) found.add(entry.rel);
      }
    } catch {
      // The root became unreadable: no suggestions, the error still stands.
    }
  }
  return [...found].slice(0, MAX_SUGGESTIONS);
}

/** 0 for a case-only difference or another extension, else the edit distance. */
function nameDistance(wanted: string, candidate: string): number {
  const a = wanted.toLowerCase();
  const b = candidate.toLowerCase();
  if (a === b) return 0;
  const stemA = a.slice(0, a.length - extname(a).length);
  const stemB = b.slice(0, b.length - extname(b).length);
  if (stemA !== "" && stemA === stemB) return 0;
  // Far apart in length is far apart: not worth the table.
  return Math.abs(a.length - b.length) > 3 ? 99 : typoDistance(a, b);
}

function maxDistance(name: string): number {
  return name.length <= 3 ? 1 : name.length <= 8 ? 2 : 3;
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function shown(root: string, abs: string): string {
  return isWithin(root, abs) ? relative(root, abs) || "." : abs;
}
