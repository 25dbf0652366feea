// The no-prompt approver (--no-prompt, or no terminal) never asks: a request
// that needs asking is denied, and the denial names the flag that grants it.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { NoPromptApprover } from "../../../src/perms/approver.ts";
import { PermissionDenied, Permissions } from "../../../src/perms/permissions.ts";
import { emptyGrants, Policy } from "../../../src/perms/policy.ts";
import { tempDir } from "../../support/context.ts";

test("it is not interactive and answers deny", async () => {
  const a = new NoPromptApprover();
  expect(a.interactive).toBe(false);
  expect(await a.ask()).toEqual({ answer: "deny" });
});

test("behind Permissions, a write that would ask is denied with the flag that grants it; a read inside is allowed", async () => {
  const root = tempDir("bunker-noprompt-");
  const notices: string[] = [];
  const perms = new Permissions({ policy: new Policy(root, emptyGrants()), approver: new NoPromptApprover(), notify: (l) => notices.push(l) });
  const target = join(root, "a.txt");
  await expect(perms.authorize({ kind: "read", target, tool: "read_file" })).resolves.toMatchObject({ verdict: "allow" });
  const denied = await perms.authorize({ kind: "write", target, tool: "write_file" }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(denied).toBeInstanceOf(PermissionDenied);
  expect((denied as Error).message).toContain("bunker is not asking (no terminal or --no-prompt)");
  expect((denied as Error).message).toContain("--allow-write=a.txt");
});

test("the flag in a denial can be pasted into a shell as it is: a path with a space is quoted", async () => {
  const root = tempDir("bunker-noprompt-");
  const perms = new Permissions({ policy: new Policy(root, emptyGrants()), approver: new NoPromptApprover(), notify: () => {} });
  const denied = await perms.authorize({ kind: "read", target: "/tmp/some where/my shot.png", tool: "read_file" }).then(
    () => null,
    (e: unknown) => e,
  );
  expect((denied as Error).message).toContain("--allow-read='/tmp/some where/my shot.png'");
});
