// Walks of what a command can make grow (the folders of a git directory it may write, the linked worktrees it may
// add), stopped at a bound. A walk that stops there must not pass for a whole one: the reviewer found the same bug
// five times over (R12-08 links, R12-11 worktrees, R12-13 modules, R12-21 symrefs, R12-26 stat data), each a count
// a command could pad past, with nothing said and what lay past it let through. So a bounded walk returns which it
// was, and its caller takes the safe side on an incomplete one (refuse, hide, clear, set aside) and says so.

/** What a bounded walk reached: all there is, or the first `bound` items and the word that there are more. */
export type Walk<T> = { complete: true; items: T[] } | { complete: false; items: T[]; bound: number };

/** The items of `source` up to `bound`: complete when the source ended within it (it is read one past, to know). */
export function upTo<T>(source: Iterable<T>, bound: number): Walk<T> {
  const items: T[] = [];
  for (const item of source) {
    if (items.length >= bound) return { complete: false, items, bound };
    items.push(item);
  }
  return { complete: true, items };
}

/**
 * The caller's answer to a walk: `whole` for a complete one, `cut` for one that stopped at its bound (both must be
 * given, so no caller can forget the second).
 */
export function onWalk<T, R>(walk: Walk<T>, whole: (items: T[]) => R, cut: (items: T[], bound: number) => R): R {
  return walk.complete ? whole(walk.items) : cut(walk.items, walk.bound);
}

/** How an incomplete walk is said: what was counted, its bound, and the safe side taken. */
export function incompleteLine(what: string, bound: number, safe: string): string {
  return `there are more ${what} than bunker looks through (${bound.toLocaleString("en-US")}), so it cannot check them all: ${safe}`;
}
