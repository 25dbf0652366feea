// Credential-shaped values for tests, built from a fixed sequence rather
// than pasted: the same every run, and no real key in the repository.

/** `n` characters from `alphabet`, the same every run for the same seed. */
export function fill(alphabet: string, n: number, seed = 7): string {
  let out = "";
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[(x >>> 8) % alphabet.length];
  }
  return out;
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const alnum = (n: number, seed?: number) => fill(ALNUM, n, seed);
export const hex = (n: number, seed?: number) => fill("0123456789abcdef", n, seed);
export const letters = (n: number, seed?: number) => fill("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", n, seed);
export const upper = (n: number, seed?: number) => fill("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", n, seed);
export const b64url = (n: number, seed?: number) => fill(`${ALNUM}_-`, n, seed);

/** One variable per class of credential the scrub knows, under the names people give them. */
export const CREDENTIALS: Record<string, string> = {
  // A token as a URL's user name, and user:password in a URL.
  HF_CLONE_URL: `https://hf_${letters(34, 1)}@huggingface.co/org/model`,
  ORIGIN_URL: `https://ghp_${alnum(36, 2)}@github.com/o/r.git`,
  CI_REMOTE: `https://x-access-token:${alnum(30, 3)}@github.com/o/r.git`,
  PIP_INDEX_URL: `https://me:${alnum(16, 4)}@pypi.corp.example/simple`,
  GOPROXY: `https://${alnum(32, 5)}@goproxy.corp.example,direct`,
  // Package managers' logins by name.
  BUNDLE_GEMS__CONTRIBSYS__COM: `${hex(8, 6)}:${hex(8, 7)}`,
  "npm_config_//registry.npmjs.org/:_authToken": `x${alnum(20, 8)}`,
  UV_INDEX_CORP_PASSWORD: `x${alnum(12, 9)}`,
  POETRY_HTTP_BASIC_CORP_PASSWORD: `x${alnum(12, 10)}`,
  TWINE_PASSWORD: `x${alnum(12, 11)}`,
  CARGO_REGISTRIES_CORP_TOKEN: `x${alnum(12, 12)}`,
  DOCKER_AUTH_CONFIG: `{"auths":{"r.example":{"auth":"${alnum(24, 13)}"}}}`,
  // Bare vendor tokens under names that say nothing.
  MY_THING: `hf_${letters(34, 14)}`,
  FOO: `ghp_${alnum(36, 15)}`,
  FINE_GRAINED: `github_pat_${alnum(22, 16)}_${alnum(59, 17)}`,
  LAB: `glpat-${b64url(20, 18)}`,
  CLAUDE: `sk-ant-api03-${b64url(93, 19)}AA`,
  GPT: `sk-proj-${b64url(60, 20)}`,
  CHAT_BOT: `xoxb-123456789012-123456789012-${alnum(24, 21)}`,
  CLOUD_ID: `AKIA${upper(16, 22)}`,
  PUBLISH: `npm_${alnum(36, 23)}`,
  UPLOAD: `pypi-AgEIcHlwaS5vcmc${b64url(60, 24)}`,
  MAPS: `AIza${b64url(35, 25)}`,
  MAIL: `SG.${b64url(22, 26)}.${b64url(43, 27)}`,
  ID_CARD: `eyJ${b64url(20, 28)}.eyJ${b64url(30, 29)}.${b64url(43, 30)}`,
  // Passwords inside options.
  MYSQL_OPTS: `-u root -p${alnum(12, 31)}`,
  JAVA_TOOL_OPTIONS: `-Xmx1g -Dfoo.password=${alnum(12, 32)}`,
  // What the red team's F5 got through: a passphrase and a login as properties, a base64 kubeconfig and key, Bundler
  // logins for hosts named like its settings, a JFrog reference token, sshpass, a header, a token as a name.
  MAVEN_OPTS: `-Xmx2g -Dgpg.passphrase=${alnum(16, 34)}`,
  SONAR_SCANNER_OPTS: `-Dsonar.login=squ_${hex(40, 35)}`,
  KUBE_CONFIG_DATA: Buffer.from(`apiVersion: v1\nusers:\n- name: ci\n  user:\n    token: ${alnum(24, 36)}\n`).toString("base64"),
  DEPLOY_B64: Buffer.from(`-----BEGIN OPENSSH PRIVATE KEY-----\n${b64url(40, 37)}\n`).toString("base64"),
  BUNDLE_BUILD__ACME__COM: `builduser:${alnum(12, 38)}`,
  BUNDLE_MIRROR__GEMS__ACME__IO: `mirroruser:${alnum(12, 39)}`,
  ARTIFACTORY_REF: `cmVmdGtuOjAxOjE3${alnum(48, 40)}`,
  GIT_SSH_COMMAND: `sshpass -p ${alnum(12, 41)} ssh`,
  GITLAB_HEADER: `PRIVATE-TOKEN: ${alnum(20, 42)}`,
  [`ghp_${alnum(36, 43)}`]: `x${alnum(12, 44)}`,
};
/** What commands must still get. */
export const ORDINARY: Record<string, string> = {
  LANG: "C.UTF-8",
  TERM: "xterm-256color",
  GOPATH: "/opt/go-path",
  PLAIN_URL: "https://github.com/owner/repo.git",
  GIT_COMMIT: hex(40, 33),
  BUILD_ID: "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
  CFLAGS: "-O2 -pthread -pipe",
  TOKENIZERS_PARALLELISM: "false",
  GIT_AUTHOR_NAME: "Ada Lovelace",
  // What the table once withheld for a name or a prefix alone (red team F6).
  DATABASE_URL: "postgres://localhost:5432/app_dev",
  MONGO_URI: "mongodb://localhost:27017/test",
  MLFLOW_TRACKING_URI: "http://localhost:5000",
  REDIRECT_URI: "http://localhost:3000/callback",
  VIRTUAL_ENV: "/opt/venvs/sk-image-segmentation-2024",
  EXTRA_CFLAGS: "-O2 -DWITH_LIBSECRET=1",
  BYPASS_CACHE: "1",
  PYTEST_ADDOPTS: "-k test_token=1",
  BUNDLE_BUILD__NOKOGIRI: "--use-system-libraries",
};
