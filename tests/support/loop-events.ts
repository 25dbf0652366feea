// The loop's events, recorded for tests that drive Agent.runTurn directly:
// what it reported, in order, without a terminal.
import type { LoopEvents } from "../../src/agent/loop.ts";

export class RecordingEvents implements LoopEvents {
  /** "start <tool summary>" and "end <tool summary>", in order. */
  readonly log: string[] = [];
  readonly notices: string[] = [];
  readonly retries: string[] = [];
  /** Whole thinking blocks, as shown folded on screen. */
  readonly thoughts: string[] = [];
  readonly tools: { summary: string; content: string; isError: boolean }[] = [];
  text = "";
  modelStarts = 0;
  onModelStart(): void {
    this.modelStarts++;
  }
  onText(delta: string): void {
    this.text += delta;
  }
  onRetry(message: string): void {
    this.retries.push(message);
  }
  onToolStart(summary: string): void {
    this.log.push(`start ${summary}`);
  }
  onToolEnd(summary: string, result: { content: string; isError: boolean }): void {
    this.log.push(`end ${summary}`);
    this.tools.push({ summary, ...result });
  }
  onNotice(message: string): void {
    this.notices.push(message);
  }
  onInjected(): void {}
  onThinkingBlock(thinking: string): void {
    this.thoughts.push(thinking);
  }
}
