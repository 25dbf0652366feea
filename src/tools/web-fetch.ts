// web_fetch: one URL, read for the model under the same host rule as
// commands (--allow-net, net: rules, --deny-net, else ask). Every hop of a
// redirect is judged again, and the request goes through bunker's proxy,
// which resolves the name and refuses loopback, link-local and private
// addresses unless they were granted by address. No cookies, no
// credentials; a timeout and a size cap; HTML comes back as Markdown, JSON
// and text as they are, a page at a time (offset reads further).
import { NetProxy, type Refusal } from "../net/proxy.ts";
import { permissionGate } from "../net/gate.ts";
import { htmlToMarkdown } from "../net/html-markdown.ts";
import { PermissionDenied } from "../perms/permissions.ts";
import { ToolError, type Tool, type ToolContext, type ToolOutput } from "./tool.ts";
import { webFetchSpec, type WebFetchInput } from "./web-fetch-spec.ts";

export type { WebFetchInput };

export interface WebFetchLimits {
  timeoutMs: number;
  /** Bytes of body read at most (after decompression). */
  maxBytes: number;
  /** Characters returned per call. */
  pageChars: number;
  maxRedirects: number;
}

export const WEB_FETCH_LIMITS: WebFetchLimits = { timeoutMs: 30_000, maxBytes: 5 * 1024 * 1024, pageChars: 20_000, maxRedirects: 5 };

const TEXT_TYPES = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|yaml|x-yaml|toml|x-sh|graphql|ld\+json)\b)/i;

export function createWebFetchTool(limits: WebFetchLimits = WEB_FETCH_LIMITS): Tool<WebFetchInput> {
  return {
    ...webFetchSpec,
    run: (input, ctx) => fetchPage(input, ctx, limits),
  };
}

export const webFetchTool = createWebFetchTool();

function parseUrl(text: string, from?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, from);
  } catch {
    throw new ToolError(`not a URL: ${JSON.stringify(text)}; give a whole http:// or https:// address`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ToolError(`web_fetch reads http:// and https:// URLs, not ${url.protocol}`);
  if (url.username || url.password) throw new ToolError("web_fetch sends no credentials: remove the user name and password from the URL");
  url.hash = "";
  return url;
}

const portOf = (url: URL) => Number(url.port || (url.protocol === "https:" ? 443 : 80));

async function fetchPage(input: WebFetchInput, ctx: ToolContext, limits: WebFetchLimits): Promise<ToolOutput> {
  const offset = input.offset ?? 0;
  if (offset < 0) throw new ToolError("offset must be 0 or more");
  let url = parseUrl(input.url);
  // The same gate the proxy asks: each host decided once per call, the question naming the URL of this hop.
  // A refusal keeps what the person is shown of it ("You refused network access to …").
  let refusedBy: PermissionDenied | undefined;
  const gate = permissionGate(ctx.perms, "web_fetch", () => url.href, ctx.signal, (err) => (refusedBy = err));
  const password = crypto.randomUUID();
  const proxy = new NetProxy({ gate, credentials: `bunker:${password}`, timeoutMs: limits.timeoutMs });
  const proxyUrl = `http://bunker:${password}@127.0.0.1:${await proxy.listenLoopback()}`;
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(limits.timeoutMs)]);
  const hops: string[] = [];
  try {
    for (;;) {
      const refusal = await gate.admit(url.hostname, portOf(url));
      if (refusal !== null) {
        const message = hops.length > 0 ? `${hops.join(" → ")} redirected to ${url.href}: ${refusal}` : refusal;
        throw new PermissionDenied(message, refusedBy?.shown !== undefined ? { shown: refusedBy.shown } : {});
      }
      const refusedBefore = proxy.refusals.length;
      const failedBefore = proxy.failures.length;
      const askedBefore = proxy.asked;
      let res: Response;
      try {
        res = await throughProxyOnly(() => fetch(url, {
          proxy: proxyUrl,
          redirect: "manual",
          signal,
          headers: { "User-Agent": "bunker (web_fetch)", Accept: "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5" },
        }));
      } catch (err) {
        // The proxy's own words (cannot resolve the name, the port refused), not fetch's "Proxy refused to open a tunnel: 502".
        const failed = proxy.failures.slice(failedBefore).at(-1);
        throw fetchError(failed ? new Error(failed.reason) : err, url, proxy.refusals.slice(refusedBefore), limits, ctx.signal.aborted);
      }
      // Whatever the fetch did, an answer that did not come through the proxy is never used (fail closed).
      if (proxy.asked === askedBefore) {
        await res.body?.cancel();
        throw new ToolError(`the request for ${url.href} did not go through bunker's network proxy, so its answer is not used`);
      }
      const refused = proxy.refusals.slice(refusedBefore);
      if (refused.length > 0) throw fetchError(null, url, refused, limits, false);
      // Plain http: the proxy's failure comes back as its own 502 page; say it as the failure it is.
      const failed = proxy.failures.slice(failedBefore).at(-1);
      if (failed) {
        await res.body?.cancel();
        throw fetchError(new Error(failed.reason), url, [], limits, false);
      }
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location !== null) {
        await res.body?.cancel();
        hops.push(url.href);
        if (hops.length > limits.maxRedirects) throw new ToolError(`more than ${limits.maxRedirects} redirects, starting at ${hops[0]}`);
        url = parseUrl(location, url);
        continue;
      }
      const { bytes, cut } = await readCapped(res, limits.maxBytes, signal).catch((err: unknown) => {
        throw fetchError(err, url, [], limits, ctx.signal.aborted);
      });
      return render(url, res, bytes, cut, offset, limits);
    }
  } finally {
    await proxy.close();
  }
}

/**
 * Runs `start` (a fetch) with NO_PROXY and no_proxy unset: Bun's fetch goes
 * straight to any host they name even when given a proxy, and the person's
 * `NO_PROXY=localhost,169.254.169.254` would take the request around the
 * proxy's address checks (red team 7 F1). Bun reads them when the fetch
 * starts, so they are back before anything else runs; bunker's own API
 * requests and commands keep them.
 */
function throughProxyOnly<T>(start: () => T): T {
  const saved = { NO_PROXY: process.env.NO_PROXY, no_proxy: process.env.no_proxy };
  delete process.env.NO_PROXY;
  delete process.env.no_proxy;
  try {
    return start();
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
  }
}

function fetchError(err: unknown, url: URL, refused: Refusal[], limits: WebFetchLimits, interrupted: boolean): ToolError {
  if (refused.length > 0) return new ToolError(`bunker's network proxy refused ${refused[0]!.target}: ${refused[0]!.reason}`);
  if (interrupted) return new ToolError("interrupted by the user");
  const e = err as Error | null;
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return new ToolError(`${url.href} did not answer within ${limits.timeoutMs / 1000} s`);
  return new ToolError(`could not fetch ${url.href}: ${e?.message ?? "unknown error"}`);
}

/** The body, at most `max` bytes (the rest is not read). */
async function readCapped(res: Response, max: number, signal: AbortSignal): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), cut: false };
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size >= max) {
      await reader.cancel();
      return { bytes: Buffer.concat(chunks).subarray(0, max), cut: true };
    }
  }
  return { bytes: Buffer.concat(chunks), cut: false };
}

function decode(bytes: Uint8Array, type: string): string {
  const label = /charset="?([\w-]+)/i.exec(type)?.[1] ?? "utf-8";
  try {
    return new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

function render(url: URL, res: Response, bytes: Uint8Array, cut: boolean, offset: number, limits: WebFetchLimits): ToolOutput {
  const type = res.headers.get("content-type") ?? "";
  const raw = decode(bytes, type);
  const html = /html/i.test(type) || (type === "" && /^\s*<(!doctype html|html)/i.test(raw));
  if (!html && !TEXT_TYPES.test(type) && !(type === "" && !raw.includes("\0"))) {
    throw new ToolError(`${url.href} is ${type || "binary"} (${bytes.length} bytes), not text: web_fetch reads HTML, JSON and text`);
  }
  let text = raw;
  if (html) {
    const page = htmlToMarkdown(raw, url.href);
    text = page.title && !page.markdown.startsWith("# ") ? `# ${page.title}\n\n${page.markdown}` : page.markdown;
  }
  if (offset > 0 && offset >= text.length) throw new ToolError(`offset ${offset} is past the end: the page has ${text.length} characters`);
  const end = Math.min(text.length, offset + limits.pageChars);
  const notes: string[] = [];
  if (end < text.length) notes.push(`[characters ${offset}–${end} of ${text.length}; call web_fetch with offset=${end} to read on]`);
  else if (offset > 0) notes.push(`[characters ${offset}–${end} of ${text.length}: the end]`);
  if (cut) notes.push(`[only the first ${limits.maxBytes} bytes of the page were read]`);
  const head = `${url.href} (${res.status}${res.statusText ? ` ${res.statusText}` : ""}${type ? `, ${type.split(";")[0]}` : ""})`;
  const content = `${head}\n\n${text.slice(offset, end)}${notes.length ? `\n\n${notes.join("\n")}` : ""}`;
  return res.status >= 400 ? { content, isError: true } : content;
}
