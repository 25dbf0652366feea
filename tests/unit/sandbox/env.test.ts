import { expect, test } from "bun:test";
import { looksSecret, scrubEnv, valueLooksSecret } from "../../../src/sandbox/env.ts";

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
