// The environment a command runs with: the person's, minus what looks like a
// credential by its name (API keys, tokens, passwords, connection URLs, agent
// sockets) or by its value (a URL with a password, a webhook, a known key),
// unless named in --allow-env; plus git settings that keep a repository's
// own files from running code.

const ALWAYS_SECRET = new Set(["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "MYSQL_PWD", "PGPASSFILE"]);
// PWD anywhere (DB_PWD, PWD_FILE; the shell's PWD and OLDPWD are kept by name), _PW (LDAP_BIND_PW), CREDS,
// connection strings (AZURE_STORAGE_CONNECTION_STRING, DB_CONN_STR); SAS tokens fall under TOKEN.
const SECRET_NAME =
  /KEY|TOKEN|SECRET|PASS(WORD|WD|PHRASE)?(_|$)|PASSWD|PWD|(^|_)PW(_|$)|CREDS?(_|$)|CREDENTIAL|CONN(ECTION)?_?STR(ING)?|AUTH|COOKIE|SESSION|WEBHOOK|(^|_)(PAT|DSN|SK)$|DATABASE_URL|_URI$/i;

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

/**
 * Values that carry a credential whatever the variable is called: a URL with
 * a password (`redis://:pw@host`, `amqp://u:pw@host`), a webhook URL (the URL
 * is the secret), a private key, and the shapes of well-known keys and tokens.
 */
const SECRET_VALUE = [
  // scheme://user:password@, anywhere in the value (jdbc:mysql://u:pw@h, a list); the password may hold a `/`
  // (redis://:ab/cd@h), but a port and a path (https://host:443/@scope/) is not one.
  /\b[a-z][a-z0-9+.-]*:\/\/[^/\s@:]*:(?!\d+\/)[^\s@]+@/i,
  // A key=value connection string or a query holding a password or key (Azure's AccountKey=, JDBC's ?password=, ODBC's PWD=).
  /(^|[;?&\s])\s*(password|passwd|pwd|secret|client_secret|AccountKey|SharedAccessKey|SharedAccessSignature|sig)\s*=\s*[^;&\s]/i,
  // A password set as a property anywhere in options (-Djavax.net.ssl.keyStorePassword=…, -Porg.gradle.project.sonatypePassword=…).
  /[a-z0-9_.-](password|passwd|secret)\s*=\s*[^\s;&]/i,
  /hooks\.slack\.com\/|discord(app)?\.com\/api\/webhooks\/|webhook\.office\.com\/|\.webhook\.|\/webhooks?\/[A-Za-z0-9_-]{16,}/i,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(sk|rk|pk)_(live|test)_[A-Za-z0-9]{10,}/, // Stripe
  /\bsk-(ant-)?[A-Za-z0-9_-]{20,}/, // Anthropic, OpenAI
  /\b(ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{30,}|\bglpat-[A-Za-z0-9_-]{20,}/, // GitHub, GitLab
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/, // Slack
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}\b/, // Google API key
  /\bnpm_[A-Za-z0-9]{36}\b/, // npm
  /\bey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, // a JWT
];

/** Whether a variable's value carries a credential (see SECRET_VALUE). */
export function valueLooksSecret(value: string): boolean {
  return SECRET_VALUE.some((re) => re.test(value));
}

/** A copy of `env` without secret-looking variables (by name or by value); names in `allowNames` pass through. */
export function scrubEnv(env: Record<string, string | undefined>, allowNames: readonly string[] = []): Record<string, string> {
  const allowed = new Set(allowNames);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if ((looksSecret(name) || valueLooksSecret(value)) && !allowed.has(name)) continue;
    out[name] = value;
  }
  return out;
}
