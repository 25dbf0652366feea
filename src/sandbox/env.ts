// The environment a command or MCP server runs with: the person's, minus what
// looks like a credential by its name, its value or both (secret-shapes.ts,
// the one table), unless named in --allow-env; plus git settings that keep a
// repository's own files from running code.
import { escapeControl } from "../ui/escape.ts";
import { looksLikeCredential, nameLooksSecret, secretShapeOf, valueLooksSecret } from "./secret-shapes.ts";

/** Whether a name alone, or a value alone, marks a variable as a credential. */
export { nameLooksSecret as looksSecret, valueLooksSecret };

/**
 * git settings for every command: no fsmonitor program (a repository's config
 * could name one, and `git status` would run it) and no implicit bare
 * repositories (a folder of plain files shaped like one carries its own
 * config). Appended to the GIT_CONFIG_KEY_n/VALUE_n pairs the person already
 * uses, renumbered without a pair the scrub took half of (a withheld
 * `http.extraHeader` value): git refuses to run at all when one is missing.
 */
export function withGitHardening(env: Record<string, string>): Record<string, string> {
  const out = { ...env };
  let count = Number(out.GIT_CONFIG_COUNT);
  if (!Number.isInteger(count) || count < 0) count = 0;
  const pairs: [string, string][] = [];
  for (let i = 0; i < Math.min(count, Object.keys(env).length); i++) {
    const key = out[`GIT_CONFIG_KEY_${i}`];
    const value = out[`GIT_CONFIG_VALUE_${i}`];
    delete out[`GIT_CONFIG_KEY_${i}`];
    delete out[`GIT_CONFIG_VALUE_${i}`];
    if (key !== undefined && value !== undefined) pairs.push([key, value]);
  }
  pairs.push(["core.fsmonitor", "false"], ["safe.bareRepository", "explicit"]);
  for (const [i, [key, value]] of pairs.entries()) {
    out[`GIT_CONFIG_KEY_${i}`] = key;
    out[`GIT_CONFIG_VALUE_${i}`] = value;
  }
  out.GIT_CONFIG_COUNT = String(pairs.length);
  return out;
}

/**
 * Tools' well-known opt-outs of checking for a newer version of themselves on
 * every run (npm's update notifier, the update-notifier package many CLIs
 * use, pip's version check): in a sandbox each check is a connection to a
 * registry that asks the person, or under --no-prompt a note inviting a grant
 * nobody needs. A variable the person set (in either case) is theirs and kept.
 */
const NO_UPDATE_CHECKS: Record<string, string> = {
  NPM_CONFIG_UPDATE_NOTIFIER: "false",
  NO_UPDATE_NOTIFIER: "1",
  PIP_DISABLE_PIP_VERSION_CHECK: "1",
};

/** `env` with the update-check opt-outs added where the person did not set them. */
export function withoutUpdateChecks(env: Record<string, string>): Record<string, string> {
  const out = { ...env };
  const set = new Set(Object.keys(env).map((n) => n.toUpperCase()));
  for (const [name, value] of Object.entries(NO_UPDATE_CHECKS)) if (!set.has(name)) out[name] = value;
  return out;
}

/** The person's environment split: what commands get, and the names withheld (names in `allowNames` pass through). */
export function splitEnv(env: Record<string, string | undefined>, allowNames: readonly string[] = []): { env: Record<string, string>; withheld: string[] } {
  const allowed = new Set(allowNames);
  const out: Record<string, string> = {};
  const withheld: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (!allowed.has(name) && looksLikeCredential(name, value)) withheld.push(name);
    else out[name] = value;
  }
  return { env: out, withheld };
}

/** A copy of `env` without secret-looking variables (by name, value or both); names in `allowNames` pass through. */
export function scrubEnv(env: Record<string, string | undefined>, allowNames: readonly string[] = []): Record<string, string> {
  return splitEnv(env, allowNames).env;
}

/** bunker's own key: never worth passing to a command, so never offered. */
const OWN = new Set(["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]);
/** What a command prints when it lacked a login. */
const LOGIN_FAILURE = /\b(401|403)\b|unauthori[sz]ed|forbidden|authenticat|credential|not logged in|log ?in required|access denied|could not read (username|password)|bad credentials|invalid (api )?(key|token)|no (api )?(key|token)|missing (api )?(key|token)|token (is )?(missing|required|not set)|api key|permission denied \(publickey/i;
const MAX_LISTED = 20;

/**
 * When a command that failed as if it lacked a login ran without variables
 * that look like credentials (`withheld`, names in `env`): one line naming
 * them and what each looked like (escaped, never a value) and the flag that
 * passes one, for the model and the person. Null otherwise.
 */
export function withheldNote(output: string, withheld: readonly string[], env: Record<string, string | undefined>): string | null {
  const names = withheld.filter((n) => !OWN.has(n));
  if (names.length === 0 || !LOGIN_FAILURE.test(output)) return null;
  // A name that is itself a token (`ghp_…=1`) is not shown either, only what it looked like.
  const offered = names.map((name) => ({ name, secret: valueLooksSecret(name), what: secretShapeOf(name, env[name] ?? "")?.what ?? "it looks like a credential" }));
  // A name is the person's (or a project's .envrc, through direnv): escaped and bounded; a value is never shown.
  const label = (w: (typeof offered)[number]) => (w.secret ? "a variable whose name is a credential" : escapeControl(w.name.length > 80 ? `${w.name.slice(0, 80)}…` : w.name));
  const shown = offered.slice(0, MAX_LISTED).map((w) => `${label(w)} (${w.what})`);
  const more = offered.length > MAX_LISTED ? ` and ${offered.length - MAX_LISTED} more` : "";
  const example = offered.find((w) => !w.secret && /^[A-Za-z_][A-Za-z0-9_]{0,79}$/.test(w.name))?.name ?? "NAME";
  return (
    `note: this command ran without the person's variables that look like credentials: ${shown.join(", ")}${more}. ` +
    `If it needs one, the person can pass it to commands with --allow-env=${example}; do not look for its value another way.`
  );
}
