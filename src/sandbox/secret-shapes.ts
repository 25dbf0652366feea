// The one table of what a credential looks like in an environment variable:
// by its name, by its value, or by both together. A variable that matches any
// entry is withheld from commands and MCP servers (env.ts) unless the person
// names it in --allow-env. Prefixes and lengths follow the vendors' published
// token formats (as collected by secret scanners such as gitleaks and GitHub's
// secret scanning); each entry says what it is.
//
// Entries are kept as source text and compiled on first use (one combined
// expression per side), so loading bunker costs nothing for them. A run that
// something else follows is bounded ({0,256}, not *), so that no value, however
// long or repetitive, makes a test take more than linear time.

export interface SecretShape {
  /** What the entry catches, said to the person when a variable is withheld. */
  what: string;
  /** A pattern the variable's name must match (tested case-insensitively). */
  name?: string;
  /** A pattern the variable's value must match. */
  value?: string;
  /** Whether `value` ignores case (names always do). */
  anyCase?: boolean;
}

/** Names that say what they hold, whatever the value. */
const BY_NAME: SecretShape[] = [
  // Bundler's per-host login, BUNDLE_GEMS__CONTRIBSYS__COM=user:pass (dots spelled __); not its own
  // settings that use __ too: build.GEM, local.GEM, mirror.URL, gem.coc and the like (a host named
  // build.… or mirror.… is judged by its value, below).
  { what: "Bundler's login for a gem server", name: String.raw`^BUNDLE_(?!(BUILD|LOCAL|MIRROR)__|GEM__[A-Z0-9]+$)\w*__` },
  // npm's per-registry login: npm_config_//registry.npmjs.org/:_authToken, :_auth, :_password.
  { what: "npm's login for a registry", name: String.raw`^NPM_CONFIG_.*:_(AUTH|PASSWORD)` },
  // API_KEY, APIKEY, SIGNING_KEY, AWS_ACCESS_KEY_ID, KEY_VAULT; not KEYBOARD_LAYOUT or KEYTAB, nor git's
  // GIT_CONFIG_KEY_n, a setting's name (its GIT_CONFIG_VALUE_n is judged by its value).
  { what: "its name says KEY", name: String.raw`^(?!GIT_CONFIG_KEY_[0-9]+$).*KEY(S|ID)?(_|$)` },
  // GITHUB_TOKEN, AZURE_SAS_TOKEN, CARGO_REGISTRIES_X_TOKEN; not Hugging Face's TOKENIZERS_PARALLELISM.
  { what: "its name says TOKEN", name: String.raw`TOKEN(?!IZER)` },
  { what: "its name says SECRET", name: "SECRET" },
  // DB_PASSWORD, TWINE_PASSWORD, UV_INDEX_X_PASSWORD, POETRY_HTTP_BASIC_X_PASSWORD, GPG_PASSPHRASE, SSH_ASKPASS; not PASSENGER_LOG,
  // CACHE_BYPASS or COMPASS_HOME.
  { what: "its name says PASSWORD", name: String.raw`(?<!BY|COM)PASS(WORD|WD|PHRASE)?(_|$)|PASSWD|PASSWORD` },
  // DB_PWD, MYSQL_PWD, PWD_FILE; the shell's own PWD and OLDPWD are the working directory.
  { what: "its name says PWD", name: String.raw`^(?!(OLD)?PWD$).*PWD` },
  { what: "its name says PW (a password)", name: String.raw`(^|_)PW(_|$)` },
  { what: "its name says CREDENTIALS", name: String.raw`CREDS?(_|$)|CREDENTIAL` },
  // OAUTH_, DOCKER_AUTH_CONFIG, npm_config_//host/:_authToken; not GIT_AUTHOR_NAME.
  { what: "its name says AUTH", name: String.raw`AUTH(?!OR)` },
  { what: "its name says COOKIE", name: "COOKIE" },
  // BW_SESSION (Bitwarden), OP_SESSION_x (1Password); not the desktop's XDG_SESSION_TYPE, DESKTOP_SESSION, SESSION_MANAGER.
  { what: "its name says SESSION", name: String.raw`^(?!XDG_SESSION_|DESKTOP_SESSION$|SESSION_MANAGER$).*SESSION` },
  { what: "its name says WEBHOOK", name: "WEBHOOK" },
  { what: "its name says JWT", name: String.raw`(^|_)JWT(_|$)` },
  // A 2FA seed (TOTP_SEED), a wallet's recovery words (SEED_PHRASE), a hash's salt or pepper (red team 10's O2); not a
  // test's random seed (PYTHONHASHSEED, FAKER_SEED) nor an MFA setting (AWS_MFA_SERIAL, OTP_LENGTH).
  { what: "its name says OTP, SALT, PEPPER or MNEMONIC", name: String.raw`(^|_)([TH]OTP|SALT|PEPPER|MNEMONIC)(_|$)|(TOTP|OTP|2FA|MFA|WALLET|MASTER|HD)_?SEED|(SEED|RECOVERY)_?PHRASE` },
  // GITHUB_PAT (personal access token), STRIPE_SK (secret key), SENTRY_DSN (holds the project's key).
  { what: "its name ends in PAT, SK or DSN", name: String.raw`(^|_)(PAT|SK|DSN)$` },
  // CONNECTION_STRING; a URL (DATABASE_URL, MONGO_URI, REDIRECT_URI) is judged by its value: withheld only when it
  // holds a password, a token as its user name or a token in its query (postgres://localhost/app reaches commands).
  { what: "a connection string", name: String.raw`CONN(ECTION)?_?STR(ING)?` },
  // A kubeconfig given whole, base64-encoded (KUBE_CONFIG_DATA, KUBECONFIG_B64): it holds the cluster's token or key.
  // Not KUBECONFIG itself, a path.
  { what: "a kubeconfig (base64)", name: String.raw`^KUBE_?CONFIG_?(DATA|B64|BASE64|CONTENTS?)$` },
  // The agents and files that hand out keys: a socket or a path that opens the person's logins.
  { what: "an agent socket or login file", name: String.raw`^(SSH_AUTH_SOCK|GPG_AGENT_INFO|PGPASSFILE|XAUTHORITY)$` },
];

/** Values that carry a credential whatever the variable is called. */
const BY_VALUE: SecretShape[] = [
  // scheme://user:password@ anywhere (jdbc:mysql://u:pw@h, PIP_INDEX_URL, GOPROXY, a list); the password may hold a `/`
  // (redis://:ab/cd@h), but a port and a path (https://host:443/@scope/) is not one.
  { what: "a URL with a password", value: String.raw`\b[a-z][a-z0-9+.-]{0,30}://[^/\s@:]{0,256}:(?![0-9]{1,5}/)[^\s@]{1,256}@`, anyCase: true },
  // A token as the URL's user name alone: https://ghp_…@github.com, https://hf_…@huggingface.co, https://<40 hex>@host.
  // Twenty or more letters and digits with at least one of each: not git@, user@, deploy-bot@.
  { what: "a URL whose user name is a token", value: String.raw`\b[a-z][a-z0-9+.-]{0,30}://(?=[^/\s@:]{0,256}[0-9])(?=[^/\s@:]{0,256}[a-z])[a-z0-9_~-]{20,256}@`, anyCase: true },
  // key=value connection strings and queries (Azure's AccountKey=, JDBC's ?password=, ODBC's PWD=, ?access_token=, ?sig=).
  {
    what: "a connection string or query with a password or key",
    value: String.raw`(^|[;?&\s])(password|passwd|pwd|secret|client_secret|token|access_token|auth_token|private_token|api_?key|AccountKey|SharedAccessKey|SharedAccessSignature|sig)\s*=\s*[^;&\s]`,
    anyCase: true,
  },
  // A password set as a property in options: -Djavax.net.ssl.keyStorePassword=…, -Dsonar.token=…, --api-key=…,
  // maven-gpg's -Dgpg.passphrase=…, SonarScanner's -Dsonar.login=…; not --password-file=. The word starts a part of the
  // name (lower or camelCase after anything but a capital, CAPITALS after no letter or digit): not -DWITH_LIBSECRET=1;
  // a number or a boolean is no credential (pytest's -k test_token=1). Written to start with the word: quicker to scan.
  {
    what: "an option that sets a password, token or key",
    value: String.raw`(?:(?<![A-Z])(?:[Pp]ass(?:word|wd|phrase)|[Ss]ecret|[Tt]oken|[Aa]pi[_-]?[Kk]ey)|(?<![A-Za-z0-9])(?:PASS(?:WORD|WD|PHRASE)|SECRET|TOKEN|API[_-]?KEY)|\.(?i:login))\s*=\s*(?!(?i:true|false|yes|no|none|null|[0-9]{1,6})(?:[\s;&]|$))[^\s;&]`,
  },
  // The same given as the next word: --password hunter2, --token abc.
  { what: "an option that sets a password, token or key", value: String.raw`(^|\s)--(password|passwd|pass|token|api-key|secret)\s+[^\s-]`, anyCase: true },
  // sshpass's password on its command line (GIT_SSH_COMMAND="sshpass -p hunter2 ssh"); not its -f FILE or -e (the variable).
  { what: "an sshpass password (-p)", value: String.raw`\bsshpass\s(?:[^;&|\n]{0,256}\s)?-p\s*[^\s-]` },
  // MySQL's client options: -u root -psecret (the password is glued to -p); not -pthread, -pipe, -pie, -pg.
  { what: "a MySQL password option (-pPASSWORD)", value: String.raw`(^|\s)-u\s*\S+\s+-p(?!thread\b|ipe\b|ie\b|g\b)\S` },
  // JSON with a credential field: DOCKER_AUTH_CONFIG's "auth", NuGet's feed endpoints' "password", a service account's "private_key".
  { what: "JSON with a credential field", value: String.raw`"(auth|password|passwd|secret|token|identitytoken|api_?key|client_secret|private_key|refresh_token|access_token)"\s*:\s*"[^"]`, anyCase: true },
  // An HTTP header's credential (git's http.extraHeader=AUTHORIZATION: basic …, a curl header).
  { what: "an Authorization header", value: String.raw`\bauthorization:\s*\S|\b(bearer|basic)\s+(?=\S{0,200}[0-9])[a-z0-9+/_.~=-]{16,}`, anyCase: true },
  // A header whose name says it carries one: GitLab's PRIVATE-TOKEN:, X-Api-Key:, X-Auth-Token:, X-Vault-Token:; its name
  // starts the value or a word, so a PATH entry (/opt/tokens:/usr/bin) is not one.
  {
    what: "a header carrying a token or key",
    value: String.raw`(?:^|[\s"'])[a-z0-9-]{0,40}(?:token(?!iz)|api-?key|secret|auth(?!or))[a-z0-9-]{0,40}:\s*[^\s/"]`,
    anyCase: true,
  },
  { what: "a webhook URL (the URL is the secret)", value: String.raw`hooks\.slack\.com/|discord(app)?\.com/api/webhooks/|webhook\.office\.com/|\.webhook\.|/webhooks?/[A-Za-z0-9_-]{16,}`, anyCase: true },
  { what: "a private key", value: String.raw`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----` },
  // The same base64-encoded (DEPLOY_KEY_B64): "-----BEGIN " is LS0tLS1CRUdJTiB, then OPENSSH, RSA, EC, DSA, ENCRYPTED,
  // PGP or nothing before PRIVATE KEY; not a certificate (CA_CERT_B64, public).
  { what: "a private key (base64)", value: String.raw`\bLS0tLS1CRUdJTiB(PUEVOU1NIIFBSSVZBVEUgS0VZ|SU0EgUFJJVkFURSBLRVk|FQyBQUklWQVRFIEtFWS|EU0EgUFJJVkFURSBLRVk|FTkNSWVBURUQgUFJJVkFURSBLRVk|QUklWQVRFIEtFWS|QR1AgUFJJVkFURSBLRVkgQkxPQ0)` },
  { what: "an age secret key", value: String.raw`AGE-SECRET-KEY-1[0-9A-Z]{50,}` },
  { what: "a JSON Web Token", value: String.raw`\beyJ[A-Za-z0-9_-]{10,2048}\.eyJ[A-Za-z0-9_-]{10,8192}\.[A-Za-z0-9_-]{10}` },
  // Vendors' tokens by their prefixes.
  { what: "an Anthropic API key", value: String.raw`\bsk-ant-[A-Za-z0-9_-]{20,}` },
  // sk-proj-…, sk-svcacct-…, sk-admin-…, the older sk-…T3BlbkFJ…, and OpenAI-compatible providers' sk-<32 to 64 letters and
  // digits> ending there (a digit in it), not a name with dashes (sk-learn-…, a folder sk-image-segmentation-2024).
  {
    what: "an OpenAI (or OpenAI-compatible) API key",
    value: String.raw`\bsk-(proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9]{20,}T3BlbkFJ|\bsk-(?=[A-Za-z]{0,64}[0-9])[A-Za-z0-9]{32,64}(?![A-Za-z0-9_-])`,
  },
  { what: "a Stripe secret or restricted key", value: String.raw`\b[sr]k_(live|test|prod)_[A-Za-z0-9]{10,}` },
  { what: "a Stripe webhook signing secret", value: String.raw`\bwhsec_[A-Za-z0-9]{20,}` },
  { what: "a GitHub token", value: String.raw`\bgh[pousr]_[A-Za-z0-9]{30,}` },
  { what: "a GitHub fine-grained token", value: String.raw`\bgithub_pat_[A-Za-z0-9_]{30,}` },
  { what: "a GitLab token", value: String.raw`\bgl(pat|dt|rt|ptt|ft|imt|soat|cbt|oas|agent|ffct)-[A-Za-z0-9_-]{20,}|\bGR1348941[A-Za-z0-9_-]{20}` },
  { what: "a Hugging Face token", value: String.raw`\b(hf|api_org)_[A-Za-z]{30,}` },
  { what: "a Slack token", value: String.raw`\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-[0-9]-[A-Za-z0-9-]{10,}` },
  { what: "an AWS access key id", value: String.raw`\b(AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b` },
  { what: "a Google API key", value: String.raw`\bAIza[A-Za-z0-9_-]{35}` },
  { what: "a Google OAuth secret or token", value: String.raw`\bGOCSPX-[A-Za-z0-9_-]{20,}|\bya29\.[A-Za-z0-9_-]{20,}|\b1//0[A-Za-z0-9_-]{30,}` },
  { what: "an npm token", value: String.raw`\bnpm_[A-Za-z0-9]{36}\b` },
  { what: "a PyPI token", value: String.raw`\bpypi-AgE[A-Za-z0-9_-]{50,}` },
  { what: "a RubyGems key", value: String.raw`\brubygems_[a-f0-9]{48}` },
  { what: "a Docker Hub token", value: String.raw`\bdckr_pat_[A-Za-z0-9_-]{20,}` },
  { what: "a SendGrid key", value: String.raw`\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}` },
  { what: "a Mailgun key", value: String.raw`\bkey-[0-9a-f]{32}\b` },
  { what: "an Azure AD client secret", value: String.raw`(^|[^A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}` },
  { what: "a Shopify token", value: String.raw`\bshp(at|ca|pa|ss)_[a-fA-F0-9]{32}` },
  { what: "a DigitalOcean token", value: String.raw`\bdo[por]_v1_[a-f0-9]{64}` },
  { what: "a Doppler token", value: String.raw`\bdp\.(pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}` },
  { what: "a HashiCorp Vault token", value: String.raw`\bhv[sb]\.[A-Za-z0-9_-]{90,}` },
  { what: "a Terraform Cloud token", value: String.raw`\b[a-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}` },
  { what: "a Databricks token", value: String.raw`\bdapi[a-f0-9]{32}` },
  { what: "a Linear key", value: String.raw`\blin_api_[A-Za-z0-9]{40}` },
  { what: "a Postman key", value: String.raw`\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}` },
  { what: "a Pulumi token", value: String.raw`\bpul-[a-f0-9]{40}` },
  { what: "a Grafana token", value: String.raw`\bglc_[A-Za-z0-9+/]{32,}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}` },
  { what: "a New Relic key", value: String.raw`\bNRAK-[A-Z0-9]{27}` },
  { what: "a Sentry token", value: String.raw`\bsntry[su]_[A-Za-z0-9+/=_]{40,}` },
  { what: "a Heroku key", value: String.raw`\bHRKU-[A-Za-z0-9_-]{40,}` },
  { what: "a Fly.io token", value: String.raw`\bfo1_[A-Za-z0-9_-]{40,}|\bfm[12][ar]?_[A-Za-z0-9+/]{100,}` },
  { what: "an Atlassian token", value: String.raw`\bATATT3[A-Za-z0-9_=-]{100,}` },
  { what: "a JFrog Artifactory key", value: String.raw`\bAKCp[A-Za-z0-9]{69}` },
  // A JFrog reference token: base64 of "reftkn:01:…", 64 characters.
  { what: "a JFrog reference token", value: String.raw`\bcmVmdGtuOjAxOj[A-Za-z0-9]{40,60}(?![A-Za-z0-9])` },
  { what: "a SonarQube token", value: String.raw`\bsq[upa]_[a-f0-9]{40}(?![A-Za-z0-9])` },
  { what: "a 1Password service account token", value: String.raw`\bops_eyJ[A-Za-z0-9+/]{100,}` },
  { what: "a PlanetScale token", value: String.raw`\bpscale_(tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,}` },
  { what: "a Supabase token", value: String.raw`\bsbp_[a-f0-9]{40}` },
  { what: "a Notion token", value: String.raw`\bntn_[0-9]{11}[A-Za-z0-9]{35}|\bsecret_[A-Za-z0-9]{43}\b` },
  { what: "a Groq, xAI, Perplexity or Replicate key", value: String.raw`\bgsk_[A-Za-z0-9]{40,}|\bxai-[A-Za-z0-9]{60,}|\bpplx-[A-Za-z0-9]{40,}|\br8_[A-Za-z0-9]{30,}` },
  { what: "a Tailscale key", value: String.raw`\btskey-[a-z]{1,16}-[A-Za-z0-9]{8,64}-[A-Za-z0-9]{16,}` },
  { what: "a Telegram bot token", value: String.raw`\b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}` },
  { what: "an OpenShift token", value: String.raw`\bsha256~[A-Za-z0-9_-]{43}` },
];

/** Both at once: a shape that is a credential only under a name that says where it goes. */
const BY_NAME_AND_VALUE: SecretShape[] = [
  // MYSQL_OPTS="-psecret", MARIADB_ARGS="--user=x -psecret": -p with the password glued on, in a MySQL variable.
  { what: "a MySQL password option (-pPASSWORD)", name: "MYSQL|MARIADB", value: String.raw`(^|\s)-p(?!thread\b|ipe\b|ie\b|g\b)\S` },
  // Bundler's login for a host whose name starts like one of its settings (build.acme.com, mirror.gems.acme.io):
  // user:pass, or a token alone; a setting's value is build flags (-…), a path or a URL.
  {
    what: "Bundler's login for a gem server",
    name: String.raw`^BUNDLE_(BUILD|LOCAL|MIRROR|GEM)__`,
    value: String.raw`^[^\s:/@-][^\s:/@]*:(?!//)[^\s@]+$|^(?=[A-Za-z_-]{0,200}[0-9])[A-Za-z0-9][A-Za-z0-9_-]{19,}$`,
  },
];

/** The whole table, in the order it is checked. */
export const SECRET_SHAPES: readonly SecretShape[] = [...BY_NAME, ...BY_VALUE, ...BY_NAME_AND_VALUE];

interface Entry {
  shape: SecretShape;
  name: RegExp | null;
  value: RegExp | null;
}

const valueSource = (s: SecretShape) => (s.anyCase ? `(?i:${s.value})` : `(?:${s.value})`);

let unions: { names: RegExp; values: RegExp; pairs: Entry[] } | undefined;
let entries: Entry[] | undefined;

const entry = (shape: SecretShape): Entry => ({
  shape,
  name: shape.name === undefined ? null : new RegExp(shape.name, "i"),
  value: shape.value === undefined ? null : new RegExp(valueSource(shape)),
});

/** One expression per side, built on the first command, not at start-up. */
function table(): NonNullable<typeof unions> {
  return (unions ??= {
    names: new RegExp(BY_NAME.map((s) => `(?:${s.name})`).join("|"), "i"),
    values: new RegExp(BY_VALUE.map(valueSource).join("|")),
    pairs: BY_NAME_AND_VALUE.map(entry),
  });
}

/**
 * Whether a variable looks like a credential: the one decision, on every variable of every command. A name is
 * judged by the value shapes too: a token can be put in a name (`ghp_…=1`) as well as in a value.
 */
export function looksLikeCredential(name: string, value: string): boolean {
  const t = table();
  return t.names.test(name) || t.values.test(value) || t.values.test(name) || t.pairs.some((e) => e.name!.test(name) && e.value!.test(value));
}

/** The first entry a variable matches (what it looks like, for a note), or null when it looks like no credential. */
export function secretShapeOf(name: string, value: string): SecretShape | null {
  if (!looksLikeCredential(name, value)) return null;
  // Each entry on its own is compiled only when a note must say which one matched.
  entries ??= SECRET_SHAPES.map(entry);
  const matches = (e: Entry) => (!e.name || e.name.test(name)) && (!e.value || e.value.test(value) || (!e.name && e.value.test(name)));
  return entries.find(matches)?.shape ?? null;
}

/** Whether a variable's name alone marks it as a credential. */
export function nameLooksSecret(name: string): boolean {
  return table().names.test(name);
}

/** Whether a variable's value alone carries a credential. */
export function valueLooksSecret(value: string): boolean {
  return table().values.test(value);
}
