// The person's git config files are shown to commands read-only, so git works
// there as they set it up. A token in one (`[url "https://x-access-token:ghp_…@github.com/"]`,
// `http.extraHeader = AUTHORIZATION: bearer …`, a `password =` line) would
// then be readable by any command (`cat ~/.gitconfig`), which the scrubbed
// environment (env.ts) exists to prevent. Such a file is shown as a copy with
// those lines withheld; a file with none is shown as it is. The same holds
// for a TOML config shown inside a toolchain tree (~/.cargo/config.toml's
// `[registry] token`), where a comment starts with `#`.
import { closeSync, fstatSync, openSync, readSync, writeFileSync, constants } from "node:fs";
import { join } from "node:path";
import { processFolder } from "./private-folder.ts";
import { valueLooksSecret } from "./env.ts";

/** Keys whose value is a credential whatever it looks like: the last part of `section.sub.key` ends in one of these
 * (`sendemail.smtpPass`, `hub.oauthtoken`, `credential.password`, `github.accesstoken`). */
const SECRET_KEYS = /(pass|password|passwd|passphrase|token|secret|extraheader|apikey|api-key)$/i;
/** `[section]` or `[section "subsection"]`, possibly with a key after it on the same line. */
const HEADER = /^\s*\[/;
/** Larger than any config a person writes; git-guard's readers stop at the same size. */
const MAX_BYTES = 1 << 20;

/** The `user:password@` of a URL. */
const URL_CREDENTIAL = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"]*@/gi;

export const WITHHELD_LINE = "; withheld by bunker (it looked like a credential)";
/** The same line in TOML. */
export const WITHHELD_TOML_LINE = "# withheld by bunker (it looked like a credential)";
/** Keys after a withheld section header belong to a section no git program reads. */
export const WITHHELD_SECTION = "[bunker-withheld] ; a section whose name looked like a credential";

/** The config with every line holding a credential withheld, and how many were. */
export function withholdCredentials(text: string, withheldLine: string = WITHHELD_LINE): { text: string; withheld: number } {
  const lines = text.split("\n");
  let withheld = 0;
  for (let i = 0; i < lines.length; i++) {
    // A logical line: a value may go on over lines ending in a backslash.
    let last = i;
    while (last < lines.length - 1 && /\\\r?$/.test(lines[last]!)) last++;
    const logical = lines.slice(i, last + 1).join("\n");
    const header = HEADER.test(logical);
    const key = header ? "" : (/^\s*([A-Za-z0-9-]+)\s*(=|$)/.exec(logical)?.[1] ?? "");
    // A URL whose credential is all that is secret in it (`url = https://bob:ghp_…@github.com/bob/app.git`): the URL
    // stays, less its credential, so `git remote -v` still says where it leads and `git fetch` fails asking for a login.
    const secret = valueLooksSecret(logical);
    const bare = secret && i === last && !header && !SECRET_KEYS.test(key) ? logical.replace(URL_CREDENTIAL, "$1") : logical;
    if (bare !== logical && !valueLooksSecret(bare)) {
      withheld++;
      lines[i] = `${withheldLine.slice(0, 2)}bunker withheld the credential in the URL below\n${bare}`;
    } else if (secret || (key && SECRET_KEYS.test(key) && /=/.test(logical))) {
      withheld++;
      lines[i] = header ? WITHHELD_SECTION : withheldLine;
      for (let j = i + 1; j <= last; j++) lines[j] = withheldLine;
    }
    i = last;
  }
  return { text: lines.join("\n"), withheld };
}

/**
 * One config file's text (null: missing); `text` null when it is there but was not read (not a regular file,
 * over 1 MB), so it could not be checked. Never waits on a FIFO.
 */
function readConfig(path: string): { text: string | null; id: string } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    const id = `${st.dev}:${st.ino}:${st.mtimeMs}:${st.ctimeMs}:${st.size}`;
    if (!st.isFile() || st.size > MAX_BYTES) return { text: null, id };
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return { text: buf.subarray(0, got).toString("utf8"), id };
  } finally {
    closeSync(fd);
  }
}

let dir: string | undefined;
const copies = new Map<string, { id: string; copy: string | null }>();

/**
 * Where the copies live: a private folder of this run in bunker's state folder, removed when bunker exits. Not
 * $TMPDIR: a command granted it could rewrite a copy in place, the global git config of every later command and of
 * a running MCP server (red team 10's F10: a `diff.external` there ran in the person's git server beside its token).
 */
function copiesDir(): string {
  return (dir ??= processFolder("bunker-gitconfig"));
}

/**
 * For each config file that holds a credential: the path of a copy without
 * it, to be shown in its place (files without one are not listed). Made
 * again when the file changes.
 */
export function credentialFreeCopies(files: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of files) {
    const read = readConfig(file);
    if (!read) continue;
    const known = copies.get(file);
    if (known?.id === read.id) {
      if (known.copy) out[file] = known.copy;
      continue;
    }
    const comment = file.endsWith(".toml") ? WITHHELD_TOML_LINE : WITHHELD_LINE;
    // A file that could not be checked is shown as a copy that holds nothing of it (fails closed).
    const { text, withheld } = read.text === null ? { text: `${comment.replace("it looked like a credential", "too large or not a file, so not checked for credentials")}\n`, withheld: 1 } : withholdCredentials(read.text, comment);
    let copy: string | null = null;
    if (withheld > 0) {
      copy = join(copiesDir(), `${copies.size}-${Bun.hash(file).toString(36)}`);
      writeFileSync(copy, text, { mode: 0o600 });
    }
    copies.set(file, { id: read.id, copy });
    if (copy) out[file] = copy;
  }
  return out;
}
