// The Messages API client on its own (fetch and the SDK's SSE reader, against
// the scripted server): what it makes of a stream and of the ways a server can fail (the
// loop's view of the same: tests/e2e/loop.test.ts).
import { afterEach, describe, expect, test } from "bun:test";
import { ApiConnectionError, ApiError, NotAStreamError, StreamError, streamMessage } from "../../../src/agent/api-client.ts";
import { raw, reply, startFakeAnthropic, text, thinking, toolUse, type FakeAnthropic, type Step } from "../../support/fake-anthropic.ts";

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

const body = { model: "claude-test", max_tokens: 100, tools: [{ name: "read_file", input_schema: { type: "object" } }], messages: [{ role: "user", content: "hi" }] };
async function send(step: Step, handlers = {}) {
  fake = startFakeAnthropic([step]);
  return streamMessage({ apiKey: "k", baseURL: fake.url, body, signal: new AbortController().signal }, handlers);
}
const failure = (p: Promise<unknown>) => p.then(() => null, (e: Error) => e);

describe("streamMessage", () => {
  test("assembles the reply the server sent, block by block, as the SDK would", async () => {
    const deltas: string[] = [];
    const msg = await send(reply([thinking("plan it"), text("Reading now."), toolUse("read_file", { path: "a.txt" }, "toolu_1")], undefined, { usage: { input_tokens: 12, output_tokens: 7 } }), {
      onText: (d: string) => deltas.push(d),
    });
    const served = fake!.requests[0]!.reply!;
    expect(msg.content).toEqual(served.content);
    expect(msg).toMatchObject({ id: served.id, stop_reason: "tool_use", usage: { input_tokens: 12, output_tokens: 7 } });
    expect(deltas.join("")).toBe("Reading now.");
    expect(fake!.requests[0]!.body.stream).toBe(true);
    // What the API needs to take the request, and a name for the server's logs.
    const headers = fake!.requests[0]!.headers;
    expect([headers["x-api-key"], headers["anthropic-version"], headers["content-type"], headers.accept]).toEqual(["k", "2023-06-01", "application/json", "text/event-stream"]);
    expect(headers["user-agent"]).toMatch(/^bunker\/\d+\.\d+\.\d+/);
  });

  test("each way of failing is its own error, with what the model layer needs to word it", async () => {
    const e429 = (await failure(send({ status: 429, body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } }, headers: { "retry-after": "3" } }))) as ApiError;
    expect(e429).toBeInstanceOf(ApiError);
    expect([e429.status, e429.type, e429.detail, e429.headers?.get("retry-after")]).toEqual([429, "rate_limit_error", "slow down", "3"]);
    const json200 = (await failure(send(raw(JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }), { contentType: "application/json" })))) as ApiError;
    expect([json200.status, json200.type]).toEqual([undefined, "overloaded_error"]);
    expect(await failure(send(raw("<html>hi</html>", { contentType: "text/html" })))).toBeInstanceOf(NotAStreamError);
    const midStream = (await failure(send({ ...reply("cut"), streamError: { afterEvents: 3 } }))) as ApiError;
    expect([midStream.status, midStream.type]).toEqual([undefined, "overloaded_error"]);
    const early = (await failure(send({ ...reply("a reply"), endAfterEvents: 4 }))) as StreamError;
    expect([early.kind, early.message]).toEqual(["cut", "the stream ended before the reply was complete"]);
    const garbled = (await failure(send(raw("event: message_start\ndata: {oops\n\n")))) as StreamError;
    expect(garbled.kind).toBe("garbled");
    const refused = await failure(streamMessage({ apiKey: "k", baseURL: "http://127.0.0.1:1", body, signal: new AbortController().signal }));
    expect(refused).toBeInstanceOf(ApiConnectionError);
    expect([(refused as ApiConnectionError).code, (refused as ApiConnectionError).host]).toEqual(["ECONNREFUSED", "127.0.0.1"]);
  });

  test("an error status that is not the API's JSON keeps its body as it came; an empty body says so", async () => {
    const page = "<html><head><title>502 Bad Gateway</title></head></html>";
    const html = (await failure(send(raw(page, { status: 502, contentType: "text/html" })))) as ApiError;
    expect([html.status, html.type, html.detail]).toEqual([502, undefined, page]);
    const empty = (await failure(send(raw("", { status: 503, contentType: "text/plain" })))) as ApiError;
    expect([empty.status, empty.detail]).toEqual([503, "the body was empty"]);
  });

  test("a base URL with a path (a proxy's) keeps it, with or without a trailing slash", async () => {
    fake = startFakeAnthropic([]);
    for (const base of [`${fake.url}/anthropic`, `${fake.url}/anthropic/`]) {
      const e = (await failure(streamMessage({ apiKey: "k", baseURL: base, body, signal: new AbortController().signal }))) as ApiError;
      expect([e.status, e.type, e.detail]).toEqual([404, "not_found_error", "Not found: POST /anthropic/v1/messages (the fake serves POST /v1/messages)"]);
    }
  });

  test("the idle watchdog hears the headers and every event of the stream", async () => {
    let pulses = 0;
    // Events sent 40 ms apart arrive as chunks of their own, even on a loaded machine: message_start, ping, block start,
    // delta(s), block stop, message_delta, message_stop.
    await send({ ...reply("slow"), eventDelayMs: 40 }, { onBytes: () => pulses++ });
    expect(pulses).toBeGreaterThanOrEqual(1 + 7);
  });

  test("a tool call cut mid-JSON is kept (input {}) only when the output limit cut the reply", async () => {
    const cut = { ...toolUse("read_file", {}), rawJson: '{"path": "sr' };
    const msg = await send(reply([text("Reading"), cut], "max_tokens"));
    expect(msg.content.at(-1)).toMatchObject({ type: "tool_use", input: {} });
    const bad = (await failure(send(reply([cut], "tool_use")))) as StreamError;
    expect(bad.kind).toBe("garbled");
  });
});
