import { describe, expect, test } from "bun:test";
import { looksSecret, scrubEnv, splitEnv, valueLooksSecret, withGitHardening, withheldNote } from "../../../src/sandbox/env.ts";

test("names that say password, credentials or connection string are dropped; the shell's PWD and OLDPWD are not", () => {
  for (const name of ["LDAP_BIND_PW", "PW", "SMTP_PW_FILE", "DB_PASSWD", "DBPWD", "PWD_FILE", "DOCKER_CREDS", "AWS_CRED", "GOOGLE_CREDENTIALS",
    "AZURE_STORAGE_CONNECTION_STRING", "DB_CONN_STR", "AZURE_SAS_TOKEN", "APP_SECRET", "SIGNING_KEY"]) {
    expect(looksSecret(name)).toBe(true);
  }
  for (const name of ["PWD", "OLDPWD", "PATH", "LANG", "PASSENGER_LOG", "POWERLINE", "SCREDIT", "EDITOR", "CONNECTED"]) expect(looksSecret(name)).toBe(false);
});

test("values shaped like a connection string with a password or key, or a URL with user:password@ in any scheme, are dropped", () => {
  for (const v of [
    "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc==;EndpointSuffix=core.windows.net",
    "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=abc=",
    "BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=sv=2020&sig=abc",
    "Server=db;Database=app;User Id=app;Password=hunter2;",
    "Driver={ODBC};Server=db;Uid=app;Pwd=hunter2",
    "jdbc:mysql://db:3306/app?user=app&password=hunter2",
    "jdbc:postgresql://app:hunter2@db/app",
    "https://a.blob.core.windows.net/c?sv=2020&sig=abcdef",
    "mirrors: https://x.example ftp://me:pw@files.example/",
    "client_id=x&client_secret=y",
    // Red team 3's recheck: a password as a property inside options, and a URL password holding a "/".
    "-Djavax.net.ssl.keyStorePassword=hunter2",
    "-Dorg.gradle.project.sonatypePassword=hunter3",
    "redis://:ab/cd+ef@cache:6379",
  ]) {
    expect(valueLooksSecret(v)).toBe(true);
  }
  for (const v of ["a=b;c=d", "rs=0:di=01;34", "https://user@mirror.example/x", "--password-file=/run/x", "Server=db;Database=app", "/usr/bin:/bin", "https://host/a:b/c", "https://registry.example:443/@scope/", "-Xmx2g -Dfile.encoding=UTF-8"]) {
    expect(valueLooksSecret(v)).toBe(false);
  }
});

test("--allow-env passes a named variable whatever its name or value", () => {
  const env = { LDAP_BIND_PW: "p", JDBC_URL: "jdbc:mysql://db/app?password=p", LANG: "C" };
  expect(scrubEnv(env)).toEqual({ LANG: "C" });
  expect(scrubEnv(env, ["LDAP_BIND_PW", "JDBC_URL"])).toEqual(env);
});

describe("what the person and the model are told", () => {
  const person = {
    ANTHROPIC_API_KEY: "sk-ant-bunkers-own-key-0123456789",
    MY_THING: `ghp_${"a1B2".repeat(9)}`,
    "EVIL\x1b]0;pwned\x07": "hunter2hunter2-password=x",
    [`ghp_${"c3D4".repeat(9)}`]: "1",
    LANG: "C",
  };
  const { withheld } = splitEnv(person);

  test("splitEnv names what it withheld, and keeps the rest", () => {
    expect(splitEnv(person)).toEqual({ env: { LANG: "C" }, withheld: ["ANTHROPIC_API_KEY", "MY_THING", "EVIL\x1b]0;pwned\x07", `ghp_${"c3D4".repeat(9)}`] });
  });

  test("a command that failed for want of a login is told which variables were withheld and the flag; never a value; names escaped", () => {
    const note = withheldNote("remote: Invalid username or token.\nfatal: Authentication failed for 'https://github.com/o/r.git/'", withheld, person)!;
    expect(note).toContain("MY_THING (a GitHub token)");
    expect(note).toContain("--allow-env=MY_THING");
    expect(note).toContain("EVIL\\x1b]0;pwned\\x07");
    expect(note).not.toContain("\x1b");
    expect(note).not.toContain("a1B2");
    expect(note).not.toContain("hunter2");
    // A name that is itself a token is withheld and not shown: only what it looked like.
    expect(note).toContain("a variable whose name is a credential (a GitHub token)");
    expect(note).not.toContain("c3D4");
    // bunker's own key is never offered.
    expect(note).not.toContain("ANTHROPIC_API_KEY");
  });

  test("no note for other failures, or when only bunker's own key was withheld", () => {
    expect(withheldNote("error: expected 2, got 3", withheld, person)).toBeNull();
    expect(withheldNote("HTTP 401 Unauthorized", ["ANTHROPIC_API_KEY"], person)).toBeNull();
  });
});

test("the person's own GIT_CONFIG pairs are kept and renumbered when the scrub withheld a value (git refuses a count with a pair missing)", () => {
  const env = withGitHardening(scrubEnv({
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: "http.extraHeader",
    GIT_CONFIG_VALUE_0: "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzXzEyMzQ1Njc4OTA=",
    GIT_CONFIG_KEY_1: "safe.directory",
    GIT_CONFIG_VALUE_1: "*",
  }));
  expect(env).toEqual({
    GIT_CONFIG_COUNT: "3",
    GIT_CONFIG_KEY_0: "safe.directory",
    GIT_CONFIG_VALUE_0: "*",
    GIT_CONFIG_KEY_1: "core.fsmonitor",
    GIT_CONFIG_VALUE_1: "false",
    GIT_CONFIG_KEY_2: "safe.bareRepository",
    GIT_CONFIG_VALUE_2: "explicit",
  });
  // A token in a setting's name (url.<base>.insteadOf) takes that pair out too.
  expect(withGitHardening(scrubEnv({ GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: `url.https://ghp_${"a1B2".repeat(9)}@github.com/.insteadOf`, GIT_CONFIG_VALUE_0: "https://github.com/" })))
    .toEqual({ GIT_CONFIG_COUNT: "2", GIT_CONFIG_KEY_0: "core.fsmonitor", GIT_CONFIG_VALUE_0: "false", GIT_CONFIG_KEY_1: "safe.bareRepository", GIT_CONFIG_VALUE_1: "explicit" });
  // git itself reads the result.
  const r = Bun.spawnSync(["git", "config", "--get", "safe.directory"], { env: { ...env, PATH: process.env.PATH ?? "/usr/bin:/bin" }, cwd: "/" });
  expect(r.stderr.toString()).toBe("");
  expect(r.stdout.toString().trim()).toBe("*");
});
