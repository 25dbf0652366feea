// The environment a command runs with: the person's, minus what looks like a
// credential (API keys, tokens, passwords, connection URLs, agent sockets),
// unless named in --allow-env; plus git settings that keep a repository's
// own files from running code.

const ALWAYS_SECRET = new Set(["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "MYSQL_PWD", "PGPASSFILE"]);
const SECRET_NAME = /KEY|TOKEN|SECRET|PASS(WORD|WD|PHRASE)?(_|$)|CREDENTIAL|AUTH|COOKIE|SESSION|(^|_)(PAT|PWD|DSN)$|DATABASE_URL|_URI$/i;

/** Whether `name` is dropped from a command's environment unless allowed. */
export function looksSecret(name: string): boolean {
  if (name === "PWD" || name === "OLDPWD") return false;
  return ALWAYS_SECRET.has(name) || SECRET_NAME.test(name);
}

/**
 * git settings for every command: no fsmonitor program (a repository's config
 * could name one, and `git status` would run it) and no implicit bare
 * repositories (a folder of plain files shaped like one carries its own
 * config). Appended to any GIT_CONFIG_COUNT the person already uses.
 */
export function withGitHardening(env: Record<string, string>): Record<string, string> {
  const out = { ...env };
  const settings: [string, string][] = [["core.fsmonitor", "false"], ["safe.bareRepository", "explicit"]];
  let n = Number(out.GIT_CONFIG_COUNT);
  if (!Number.isInteger(n) || n < 0) n = 0;
  for (const [key, value] of settings) {
    out[`GIT_CONFIG_KEY_${n}`] = key;
    out[`GIT_CONFIG_VALUE_${n}`] = value;
    n++;
  }
  out.GIT_CONFIG_COUNT = String(n);
  return out;
}

/** A copy of `env` without secret-looking variables; names in `allowNames` pass through. */
export function scrubEnv(env: Record<string, string | undefined>, allowNames: readonly string[] = []): Record<string, string> {
  const allowed = new Set(allowNames);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (looksSecret(name) && !allowed.has(name)) continue;
    out[name] = value;
  }
  return out;
}
