// A refusal as each reader gets it: the model a sentence about "the person", the person their own answer.
import { expect, test } from "bun:test";
import { NoPromptApprover } from "../../../src/perms/approver.ts";
import { PermissionDenied, Permissions } from "../../../src/perms/permissions.ts";
import { emptyGrants, Policy } from "../../../src/perms/policy.ts";
import type { ApprovalAnswer, PermRequest } from "../../../src/perms/types.ts";
import { makeContext, tempDir } from "../../support/context.ts";

async function refusal(req: (root: string) => PermRequest, answer: ApprovalAnswer): Promise<{ message: string; shown: string | undefined }> {
  const root = tempDir();
  const ctx = makeContext(root, { answers: [answer] });
  const err = await ctx.perms.authorize(req(root)).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(PermissionDenied);
  return { message: (err as PermissionDenied).message, shown: (err as PermissionDenied).shown };
}

const run = (): PermRequest => ({ kind: "run", target: "rm -rf a", tool: "run_bash", run: { command: "rm -rf a", cwd: "/", sandboxed: true, network: false } });

test("each kind: the model reads 'The person refused …', the person 'You refused …'", async () => {
  const deny: ApprovalAnswer = { answer: "deny" };
  expect(await refusal(run, deny)).toEqual({ message: "The person refused running `rm -rf a`.", shown: "You refused this command." });
  expect(await refusal(() => ({ kind: "net", target: "evil.example:443", tool: "web_fetch" }), deny)).toEqual({
    message: "The person refused network access to evil.example:443.",
    shown: "You refused network access to evil.example:443.",
  });
  expect(await refusal(() => ({ kind: "mcp", target: "mail/send", tool: "mcp__mail__send" }), deny)).toEqual({ message: "The person refused calling the MCP tool mail/send.", shown: "You refused this call." });
});

test("with words for Claude: the model gets them, the person is told they went; Escape and the person's own /undo add nothing to what the question showed", async () => {
  expect(await refusal(run, { answer: "deny", feedback: "keep a" })).toEqual({ message: "The person refused running `rm -rf a` and said: keep a", shown: "You refused this command; Claude was told why." });
  expect(await refusal(run, { answer: "deny", stopsTurn: true })).toEqual({ message: "The person refused running `rm -rf a`.", shown: "" });
  expect(await refusal(() => ({ ...run(), byPerson: true }), { answer: "deny" })).toEqual({ message: "The person refused running `rm -rf a`.", shown: "" });
});

test("the model's retry of what the person refused in this turn: refused unasked, and the person is told why they were not asked", async () => {
  const ctx = makeContext(tempDir(), { answers: [{ answer: "deny" }] });
  await ctx.perms.authorize(run()).catch(() => {});
  const again = (await ctx.perms.authorize(run()).catch((e: unknown) => e)) as PermissionDenied;
  expect(ctx.approver.asked).toHaveLength(1);
  expect(again.message).toContain("the person already refused this");
  expect(again.shown).toBe("Not asked again: you refused this command earlier in this turn.");
});

test("headless, a host that reads as another (punycode with letters of two scripts) is refused with a warning before the flag that grants it (the new user)", async () => {
  const ctx = makeContext(tempDir(), { interactive: false });
  const spoof = (await ctx.perms.authorize({ kind: "net", target: "xn--exmple-4nf.com:443", tool: "web_fetch" }).catch((e: unknown) => e)) as PermissionDenied;
  expect(spoof.message).toContain("Careful: xn--exmple-4nf.com:443 reads as exаmple.com:443 (mixed scripts in \"exаmple\", mostly Latin: а is CYRILLIC SMALL LETTER A U+0430): make sure it is the host you mean before granting it. To grant it, run bunker with --allow-net=xn--exmple-4nf.com:443");
  const plain = (await ctx.perms.authorize({ kind: "net", target: "example.com:443", tool: "web_fetch" }).catch((e: unknown) => e)) as PermissionDenied;
  expect(plain.message).not.toContain("Careful");
  // A whole name in another script is not a spoof of a Latin one: no warning (its punycode is what DNS looks up).
  const russian = (await ctx.perms.authorize({ kind: "net", target: "xn--d1acpjx3f.xn--p1ai:443", tool: "web_fetch" }).catch((e: unknown) => e)) as PermissionDenied;
  expect(russian.message).not.toContain("Careful");
});

test("a write decided unasked is still shown: allowed by a grant, or refused where bunker is not asking (the diff before the refusal)", async () => {
  const root = tempDir();
  const files = [{ display: "a.txt", diff: "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-old\n+new\n", added: 1, removed: 1, kind: "modify" as const }];
  const shown: string[] = [];
  const write = (): PermRequest => ({ kind: "write", target: `${root}/a.txt`, tool: "edit_file", files });
  const grants = emptyGrants();
  grants.allow.write.workspace = true;
  const allowed = new Permissions({ policy: new Policy(root, grants), approver: new NoPromptApprover(), notify: () => {}, onUnasked: (r) => shown.push(`allowed ${r.files![0]!.display}`) });
  await allowed.authorize(write());
  const refusing = new Permissions({ policy: new Policy(root, emptyGrants()), approver: new NoPromptApprover(), notify: () => {}, onUnasked: (r) => shown.push(`refused ${r.files![0]!.display}`) });
  await expect(refusing.authorize(write())).rejects.toThrow("To grant it, run bunker with --allow-write=a.txt");
  expect(shown).toEqual(["allowed a.txt", "refused a.txt"]);
});

test("a write that loses work bunker did not make (PermRequest.loses) is asked even where writes are granted, and refused with what to do where bunker is not asking", async () => {
  const root = tempDir();
  const grants = emptyGrants();
  grants.allow.write.workspace = true;
  const req: PermRequest = { kind: "write", target: `${root}/c.txt`, tool: "undo", byPerson: true, loses: "c.txt was changed after bunker's change" };
  const asking = makeContext(root, { grants, answers: [{ answer: "once" }] });
  await asking.perms.authorize(req);
  expect(asking.approver.asked.map((r) => r.loses)).toEqual(["c.txt was changed after bunker's change"]);
  const headless = makeContext(root, { grants, interactive: false });
  await expect(headless.perms.authorize(req)).rejects.toThrow("c.txt was changed after bunker's change. bunker asks before overwriting changes it did not make, and it is not asking");
  // Without it, the grant covers the write: nothing asked.
  const plain = makeContext(root, { grants });
  await plain.perms.authorize({ ...req, loses: undefined });
  expect(plain.approver.asked).toHaveLength(0);
});

test("\"always allow\" grants the session the rules it showed, not the prefix: after `run:rm -rf build`, `rm -rf src` is asked (reviewer's R12-12)", async () => {
  const root = tempDir();
  const rm = (command: string): PermRequest => ({ kind: "run", target: command, tool: "run_bash", run: { command, cwd: root, sandboxed: true, network: false } });
  const ctx = makeContext(root, { answers: [{ answer: "target-session", runRules: ["run:rm -rf build"] }] });
  await ctx.perms.authorize(rm("rm -rf build"));
  expect(ctx.approver.asked[0]!.run?.saves).toEqual(["run:rm -rf build"]);
  expect(ctx.approver.asked[0]!.run?.prefixes).toEqual(["rm"]);
  const other = await ctx.perms.authorize(rm("rm -rf src")).catch((e: unknown) => e);
  expect(other).toBeInstanceOf(PermissionDenied);
  expect(ctx.approver.asked).toHaveLength(2);
  await ctx.perms.authorize(rm("rm -rf build"));
  expect(ctx.approver.asked).toHaveLength(2);
  await expect(ctx.perms.authorize(rm("rm -rf build x"))).rejects.toBeInstanceOf(PermissionDenied);
  expect(ctx.approver.asked).toHaveLength(3);
  // A rule with arguments is granted as its prefix, as option 2 would have.
  const npm = makeContext(root, { answers: [{ answer: "target-session", runRules: ["run:npm test *"] }] });
  await npm.perms.authorize(rm("npm test"));
  await npm.perms.authorize(rm("npm test --watch"));
  expect(npm.approver.asked).toHaveLength(1);
});
