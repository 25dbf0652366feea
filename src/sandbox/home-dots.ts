// A grant of the home folder (--allow-read=~, or a folder holding the home
// such as /home or /) shows its non-dot entries only: the dot-entries are
// where logins, keys, browser profiles and shell histories live, and a list
// of credential stores is always one name short (red team 7 F4: 22 stores
// past it). A dot-entry is shown only when a grant names it or a path in it
// (--allow-read=~/.config/foo shows that folder, not the rest of ~/.config),
// or when the sandbox shows something in it anyway (a toolchain tree such as
// ~/.bun, git's own config): then its other entries stay hidden the same
// way. The one rule for commands (masks in the sandbox) and the file tools
// (the policy asks). A snap's folders under ~/snap/NAME/ are homes of their
// own (a strict snap's $HOME is ~/snap/NAME/REVISION, beside .../common):
// their dot-entries are hidden the same way (red team 8 F1: Firefox's snap
// profile, ~/snap/firefox/common/.mozilla, was shown under --allow-read=~).
import { isAbsolute, join, relative, sep } from "node:path";
import { globBase } from "./denied-files.ts";
import { isWithin } from "../perms/workspace.ts";

/** What the masks need of the host: an entry's kind (a link not followed) and a folder's names. */
export interface HomeFs {
  kind(path: string): "dir" | "file" | "link" | null;
  list(path: string): string[];
}

/**
 * The masks that leave a granted home showing only what is meant: each
 * dot-entry of `home`, unless `shown` (every other path the sandbox shows)
 * holds it or lies in it; one that holds a shown path is entered, and its
 * entries are judged the same way (all of them, dot or not). Links are left
 * alone: a link shows only what its target's own mount shows. Nothing when no
 * grant in `grants` is the home or holds it.
 */
export function homeDotMasks(home: string, grants: readonly string[], shown: readonly string[], fs: HomeFs): { path: string; dir: boolean }[] {
  if (home === sep || !grants.some((g) => isWithin(g, home))) return [];
  const keep = shown.filter((s) => s !== home && isWithin(home, s));
  const masks: { path: string; dir: boolean }[] = [];
  const visit = (dir: string, dotsOnly: boolean) => {
    for (const name of fs.list(dir)) {
      if (dotsOnly && !name.startsWith(".")) continue;
      const p = join(dir, name);
      if (keep.includes(p)) continue;
      const kind = fs.kind(p);
      if (kind === null || kind === "link") continue;
      if (keep.some((k) => isWithin(p, k))) {
        if (kind === "dir") visit(p, false);
        continue;
      }
      masks.push({ path: p, dir: kind === "dir" });
    }
  };
  visit(home, true);
  for (const inner of snapHomes(home, fs)) if (!keep.includes(inner)) visit(inner, true);
  return masks;
}

/** The snaps' homes in `home`: each folder in ~/snap/NAME/ (REVISION and common; `current` is a link to one). */
function snapHomes(home: string, fs: HomeFs): string[] {
  const snap = join(home, "snap");
  if (fs.kind(snap) !== "dir") return [];
  const out: string[] = [];
  for (const app of fs.list(snap)) {
    const dir = join(snap, app);
    if (fs.kind(dir) === "dir") for (const v of fs.list(dir)) if (fs.kind(join(dir, v)) === "dir") out.push(join(dir, v));
  }
  return out;
}

/** The dot-entry of `home` (or of a snap's home in it) that holds `real` (`~/.config` for `~/.config/x/y`), or null. */
export function homeDotEntry(home: string, real: string): string | null {
  if (home === sep || !isAbsolute(home) || real === home || !isWithin(home, real)) return null;
  const parts = relative(home, real).split(sep);
  if (parts[0]!.startsWith(".")) return join(home, parts[0]!);
  // In a snap's home (~/snap/NAME/REVISION/.mozilla/...): the dot-entry there.
  if (parts[0] === "snap" && parts.length > 3 && parts[3]!.startsWith(".")) return join(home, ...parts.slice(0, 4));
  return null;
}

/**
 * For the file tools: the dot-entry of the home that holds `real` when no
 * grant names it or a path in it that covers `real` (the grant that covers
 * `real` is a wider one: the home, or a folder holding it), else null.
 */
export function unnamedHomeDotEntry(home: string, real: string, grants: { paths: readonly string[]; globs: readonly string[] }): string | null {
  const dot = homeDotEntry(home, real);
  if (!dot) return null;
  const named =
    grants.paths.some((p) => isWithin(dot, p) && isWithin(p, real)) ||
    grants.globs.some((g) => isWithin(dot, globBase(g)) && new Bun.Glob(g).match(real));
  return named ? null : dot;
}
