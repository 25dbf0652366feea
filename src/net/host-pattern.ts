// Host grants for --allow-net / --deny-net / net: rules, and the one
// canonical form of a network target ("host:port"). Pure: no I/O.
//
//   example.com        that host, any port
//   example.com:443    that host, that port
//   *.example.com      any name below example.com (not example.com itself), any port
//   127.0.0.2:8080     an address (IPv4, or IPv6 in brackets: [::1]:8080)
//
// Names are compared after the WHATWG URL parser has normalized them, so
// 0x7f.1, 2130706433 and 127.1 are all 127.0.0.1, and [::ffff:127.0.0.1] is
// [::ffff:7f00:1]: a spelling cannot slip past a rule. `localhost` is the
// loopback address by definition (RFC 6761; bunker never asks DNS about it),
// so it is 127.0.0.1 in a rule and in a request alike: a grant of
// localhost:8765 is a grant of 127.0.0.1:8765, and a hint names the address.

export interface HostPattern {
  /** Lower-case, normalized host; for a wildcard, the suffix after "*.". IPv6 in brackets. */
  host: string;
  wildcard: boolean;
  /** Undefined: any port. */
  port?: number;
}

/** A host as the URL parser normalizes it (lower case, numeric IPv4 forms expanded, IPv6 bracketed), or null. */
export function normalizeHost(host: string): string | null {
  if (host === "" || /[\s/?#@\\%]/.test(host)) return null;
  let h: string;
  try {
    h = new URL(`http://${host}/`).hostname;
  } catch {
    return null;
  }
  // One form per host, or a deny is passed by another spelling (reviewer's R11-03): the DNS root's dot
  // (`pastebin.com.` is pastebin.com), and an IPv4 address written as IPv6 (`[::ffff:5db8:d822]` is 93.184.216.34).
  if (h.endsWith(".") && !h.startsWith("[")) h = h.slice(0, -1);
  if (h === "" || h.startsWith(".") || h.endsWith(".") || h.includes("..")) return null;
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(h);
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    h = `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return h === "localhost" ? "127.0.0.1" : h;
}

/** "host:port" split at the last colon outside brackets; port null when absent. */
export function splitHostPort(text: string): { host: string; port: number | null } | null {
  const m = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(text);
  if (!m) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { host: m[1]!, port };
}

/** Parses one pattern; null when it is not one (the caller says which flag or rule held it). */
export function parseHostPattern(text: string): HostPattern | null {
  const parts = splitHostPort(text.trim());
  if (!parts) return null;
  const wildcard = parts.host.startsWith("*.");
  const host = normalizeHost(wildcard ? parts.host.slice(2) : parts.host);
  if (!host || host.includes("*")) return null;
  return { host, wildcard, ...(parts.port !== null ? { port: parts.port } : {}) };
}

/** The canonical target string a request is judged and remembered by. */
export function netTarget(host: string, port: number): string {
  return `${host}:${port}`;
}

/** Whether `pattern` covers `host` (normalized) on `port`. */
export function hostPatternMatches(pattern: HostPattern, host: string, port: number): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false;
  return pattern.wildcard ? host.endsWith(`.${pattern.host}`) : host === pattern.host;
}

/** Whether any of the pattern texts covers the target "host:port". Unparseable texts cover nothing. */
export function hostsCover(patterns: readonly string[], target: string): boolean {
  const t = splitHostPort(target);
  if (!t || t.port === null) return false;
  return patterns.some((p) => {
    const parsed = parseHostPattern(p);
    return parsed !== null && hostPatternMatches(parsed, t.host, t.port!);
  });
}

/** For a refused host pattern written as a URL (`https://github.com/x`): " (did you mean github.com?)"; else "". */
export function hostOfUrlHint(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || !URL.canParse(text)) return "";
  const url = new URL(text);
  return url.hostname ? ` (did you mean ${url.host}?)` : "";
}
