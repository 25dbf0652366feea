// What runs after --version and --help (src/cli.ts): a flag that is wrong is
// a usage error (exit 2, one line on stderr), a missing key is named with how
// to set it, and nothing else starts. Whole sessions are run by tests/e2e.
import { afterEach, beforeEach, expect, spyOn, test } from "bun:test";
import { runCli } from "../../src/cli.ts";
import { tempDir } from "../support/context.ts";

let err: string;
let spy: ReturnType<typeof spyOn>;
const saved = { key: process.env.ANTHROPIC_API_KEY, home: process.env.HOME };

beforeEach(() => {
  err = "";
  spy = spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
});
afterEach(() => {
  spy.mockRestore();
  for (const [name, value] of [["ANTHROPIC_API_KEY", saved.key], ["HOME", saved.home]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

test("a flag bunker does not know is a usage error: exit 2 and the what to run for help, escaped", async () => {
  expect(await runCli(["--no-such-flag\x1b[2J"])).toBe(2);
  expect(err).toBe("bunker: unknown option --no-such-flag\\x1b[2J. Run bunker --help for usage.\n");
});

test("without ANTHROPIC_API_KEY nothing starts: exit 2 and where to get a key", async () => {
  delete process.env.ANTHROPIC_API_KEY;
  process.env.HOME = tempDir("bunker-cli-home-");
  expect(await runCli(["-p", "hello", "-C", tempDir("bunker-cli-ws-")])).toBe(2);
  expect(err).toBe("bunker: ANTHROPIC_API_KEY is not set. Create a key at console.anthropic.com and run: export ANTHROPIC_API_KEY=sk-ant-...\n");
});
