// The environment a command runs with: the person's, minus what looks like a
// credential (API keys, tokens, passwords), unless named in --allow-env.

const ALWAYS_SECRET = new Set(["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]);
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/** Whether `name` is dropped from a command's environment unless allowed. */
export function looksSecret(name: string): boolean {
  return ALWAYS_SECRET.has(name) || SECRET_NAME.test(name);
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
