// Approvers answer the "ask" verdicts. The no-prompt approver is used with
// --no-prompt or whenever stdin or stderr is not a terminal: it never asks,
// and Permissions turns that into a denial naming the flag that grants it.
// The interactive (clack) approver lives in tty-approver.ts.
import type { ApprovalAnswer, Approver } from "./types.ts";

export class NoPromptApprover implements Approver {
  readonly interactive = false;
  async ask(): Promise<ApprovalAnswer> {
    return { answer: "deny" };
  }
}
