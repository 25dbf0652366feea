// Which IP addresses are this machine or its local network: loopback,
// link-local, private, carrier-grade NAT, unspecified, multicast, reserved.
// bunker connects to those only when the person granted the address itself
// (a granted name that resolves to 127.0.0.1 is not a grant of 127.0.0.1).
// IPv6 forms that carry an IPv4 address (::ffff:a.b.c.d, 64:ff9b::/96,
// 2002::/16) are judged by that address. Pure: no I/O.
import { isIPv4, isIPv6 } from "node:net";
import { normalizeHost } from "./host-pattern.ts";

/** Why an address is local ("loopback", "private"…), or null for a public address. */
export function localAddressKind(address: string): string | null {
  const a = address.replace(/^\[|\]$/g, "");
  if (isIPv4(a)) return ipv4Kind(a.split(".").map(Number));
  if (isIPv6(a)) return ipv6Kind(a);
  return "not an IP address";
}

function ipv4Kind([a, b, c]: number[]): string | null {
  if (a === 127) return "loopback";
  if (a === 0) return "unspecified";
  if (a === 10 || (a === 172 && b! >= 16 && b! < 32) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (a === 100 && b! >= 64 && b! < 128) return "carrier-grade NAT";
  if (a === 192 && b === 0 && c === 0) return "reserved";
  if (a === 198 && (b === 18 || b === 19)) return "reserved";
  if (a! >= 224) return a! < 240 ? "multicast" : "reserved";
  return null;
}

/** The eight 16-bit groups of an IPv6 address (with an embedded dotted IPv4 tail converted). */
function ipv6Groups(a: string): number[] {
  let text = a.split("%")[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [p, q, r, s] = dotted[1]!.split(".").map(Number);
    text = text.slice(0, dotted.index) + `${((p! << 8) | q!).toString(16)}:${((r! << 8) | s!).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const h = head ? head.split(":") : [];
  const t = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const fill = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill("0");
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

/** The IPv4 address an IPv6 address carries: ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64), 2002:AABB:CCDD:: (6to4). */
function embeddedIPv4(g: number[]): number[] | null {
  const v4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!);
  return null;
}

/**
 * One spelling per address, to compare two: an IPv4 address dotted, also when an IPv6 form carries it
 * (`::ffff:192.0.2.2` is 192.0.2.2: a dual-stack socket reaches it so), other IPv6 as its eight groups.
 */
export function canonicalAddress(address: string): string {
  const a = address.replace(/^\[|\]$/g, "").split("%")[0]!.toLowerCase();
  if (!isIPv6(a)) return a;
  const g = ipv6Groups(a);
  const v4 = g.slice(0, 7).every((x) => x === 0) && g[7]! <= 1 ? null : embeddedIPv4(g);
  return v4 ? v4.join(".") : g.map((x) => x.toString(16)).join(":");
}

function ipv6Kind(a: string): string | null {
  const g = ipv6Groups(a);
  if (g.every((x) => x === 0)) return "unspecified";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "loopback";
  // An IPv6 form that carries an IPv4 address: the IPv4 address decides.
  const v4 = embeddedIPv4(g);
  if (v4) return ipv4Kind(v4);
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0]! & 0xfe00) === 0xfc00) return "private";
  if ((g[0]! & 0xff00) === 0xff00) return "multicast";
  return null;
}

/** Whether the text is an IP address (IPv6 with or without brackets). */
export function isIpLiteral(host: string): boolean {
  const a = host.replace(/^\[|\]$/g, "");
  return isIPv4(a) || isIPv6(a);
}

/** An address as a host in a target or rule, normalized as rules are: IPv6 in brackets. */
export function addressAsHost(address: string): string {
  return normalizeHost(isIPv6(address) ? `[${address}]` : address) ?? address;
}
