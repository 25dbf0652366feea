import { expect, test } from "bun:test";
import { addressAsHost, canonicalAddress, isIpLiteral, localAddressKind } from "../../../src/net/address.ts";

test("loopback, private, link-local and the IPv6 forms that carry them are local; public addresses are not", () => {
  const cases: [string, string | null][] = [
    ["127.0.0.1", "loopback"], ["127.0.0.3", "loopback"], ["10.1.2.3", "private"], ["172.16.0.1", "private"], ["172.32.0.1", null],
    ["192.168.1.1", "private"], ["169.254.169.254", "link-local"], ["100.64.0.1", "carrier-grade NAT"], ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"], ["8.8.8.8", null], ["93.184.216.34", null],
    ["::1", "loopback"], ["::", "unspecified"], ["fe80::1", "link-local"], ["fd00::1", "private"], ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"], ["::ffff:7f00:1", "loopback"], ["[::ffff:7f00:1]", "loopback"], ["::ffff:10.0.0.1", "private"],
    ["64:ff9b::a9fe:a9fe", "link-local"], ["2002:7f00:1::", "loopback"], ["2606:4700::1111", null], ["::ffff:8.8.8.8", null],
  ];
  for (const [address, kind] of cases) expect([address, localAddressKind(address)]).toEqual([address, kind]);
});

test("addresses as hosts are written as rules are", () => {
  expect(isIpLiteral("[::1]")).toBe(true);
  expect(isIpLiteral("example.com")).toBe(false);
  // An IPv4 address written as IPv6 is that address (one form per host, reviewer's R11-03).
  expect(addressAsHost("::ffff:127.0.0.1")).toBe("127.0.0.1");
  expect(addressAsHost("127.0.0.1")).toBe("127.0.0.1");
});

test("one spelling per address: an IPv6 form that carries an IPv4 address is that address; other IPv6 by its groups", () => {
  expect(canonicalAddress("::ffff:192.0.2.2")).toBe("192.0.2.2");
  expect(canonicalAddress("[::FFFF:c000:202]")).toBe("192.0.2.2");
  expect(canonicalAddress("192.0.2.2")).toBe("192.0.2.2");
  expect(canonicalAddress("2001:db8:0:0::5")).toBe(canonicalAddress("2001:DB8::5"));
  expect(canonicalAddress("fe80::1%eth0")).toBe(canonicalAddress("fe80::1"));
  expect(canonicalAddress("::1")).not.toBe(canonicalAddress("0.0.0.1"));
});
