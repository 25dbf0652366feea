// A PATH value as a shell startup file or an .envrc writes it
// (`$HOME/bin:$PATH`, `"$PWD/bin${PATH:+:$PATH}"`): its entries and where
// what PATH had stands among them. One reader for startup-files.ts and
// path-adds.ts (red team 10's F07 and F08: `${PATH:+:${PATH}}` split at its
// colons hid the folder before it from both).

/** `${PATH:+:${PATH}}`, `${PATH:+:$PATH}`, `${PATH:+${PATH}:}`: what PATH had, with its colon only when it was set. */
const OLD_PATH_IF_SET = /\$\{PATH:\+:?\$\{?PATH\}?:?\}/g;
const OLD_PATH = /^\$\{?PATH\}?$/;

/** The entries of `value` (quotes already removed), and the index of what PATH had (-1 when it is not there). */
export function pathValue(value: string): { entries: string[]; old: number } {
  const entries = value.replace(OLD_PATH_IF_SET, ":$PATH:").split(":").filter((e) => e !== "");
  return { entries, old: entries.findIndex((e) => OLD_PATH.test(e)) };
}
