import { expect, test } from "bun:test";
import { envrcLoads } from "../../../src/perms/envrc-loads.ts";

test("the files an .envrc makes direnv read: dotenv (.env by default), source_env, source_up, watch_file, use nix/flake", () => {
  const text = [
    "dotenv",
    "dotenv_if_exists .env.local # comment",
    "[ -f x ] && source_env ../shared",
    "source_env_if_exists 'tools/.envrc.local'",
    "watch_file config.sh versions.txt",
    "use flake",
    "source_up .envrc.team",
    'dotenv "$HOME/secrets.env"',
    "export FOO=1",
  ].join("\n");
  expect(envrcLoads("/w/app/.envrc", text, "/w").sort()).toEqual(
    ["/w/.envrc.team", "/w/app/.env", "/w/app/.env.local", "/w/shared", "/w/shared/.envrc", "/w/app/tools/.envrc.local", "/w/app/config.sh", "/w/app/versions.txt", "/w/app/flake.nix", "/w/app/flake.lock"].sort(),
  );
  expect(envrcLoads("/w/.envrc", "dotenv secrets/.env\nuse nix", "/w").sort()).toEqual(["/w/default.nix", "/w/secrets/.env", "/w/shell.nix"]);
});

test("use devenv: devenv's configuration, lock, local overrides and its .devenv folder (red team 11's F17); use flake's local folder", () => {
  expect(envrcLoads("/w/.envrc", "use devenv\n", "/w")).toEqual(["/w/devenv.nix", "/w/devenv.yaml", "/w/devenv.lock", "/w/devenv.local.nix", "/w/devenv.local.yaml", "/w/.devenv.flake.nix", "/w/.devenv"]);
  expect(envrcLoads("/w/.envrc", "use flake ./nix#dev\nuse flake github:a/b\n", "/w")).toEqual(["/w/flake.nix", "/w/flake.lock", "/w/nix/flake.nix", "/w/nix/flake.lock"]);
});
