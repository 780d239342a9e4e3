/**
 * Whether an IP address is a public unicast address of the Internet, the only kind a destination may reach on AWS
 * (docs/alert-destinations.md "SSRF rules"). Everything else is refused: private, loopback, link-local (the
 * instance metadata service 169.254.169.254 among them), CGNAT, multicast, broadcast, unspecified, documentation
 * and benchmark ranges, unique-local and site-local IPv6, and IPv6 forms that carry an IPv4 address (mapped,
 * compatible, NAT64, 6to4 — judged by the address they carry, or refused when they cannot be). Pure: no DNS.
 */
import { isIPv4, isIPv6 } from "node:net";

/** The four bytes of a dotted IPv4 address, or undefined. */
function ipv4Bytes(address: string): number[] | undefined {
  if (!isIPv4(address)) return undefined;
  return address.split(".").map(Number);
}

/** The sixteen bytes of an IPv6 address (with `::` and a dotted IPv4 tail), or undefined. */
function ipv6Bytes(address: string): number[] | undefined {
  const bare = address.replace(/%.*$/, ""); // a zone (fe80::1%eth0) names an interface, not an address
  if (!isIPv6(bare)) return undefined;
  let text = bare;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const v4 = ipv4Bytes(dotted[1]);
    if (v4 === undefined) return undefined;
    tail.push(...v4);
    text = text.slice(0, -dotted[1].length);
    if (text.endsWith(":") && !text.endsWith("::")) text = text.slice(0, -1);
  }
  const groupsWanted = 8 - tail.length / 2;
  const [head = "", rest] = text.split("::", 2);
  const headGroups = head === "" ? [] : head.split(":");
  const restGroups = rest === undefined || rest === "" ? [] : rest.split(":");
  const missing = groupsWanted - headGroups.length - restGroups.length;
  if (rest === undefined && missing !== 0) return undefined;
  const groups = [...headGroups, ...Array<string>(Math.max(0, missing)).fill("0"), ...restGroups];
  const bytes = groups.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
  return [...bytes, ...tail];
}

function inPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit++) {
    const byte = Math.floor(bit / 8);
    const mask = 0x80 >> (bit % 8);
    if (((bytes[byte] ?? 0) & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

/** IPv4 ranges that are not public unicast (RFC 6890 and friends). */
const IPV4_NOT_PUBLIC: ReadonlyArray<readonly [number[], number]> = [
  [[0, 0, 0, 0], 8], // "this network", 0.0.0.0 unspecified
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // CGNAT (shared address space)
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local, the metadata service 169.254.169.254
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 88, 99, 0], 24], // 6to4 relay anycast
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, broadcast
];

function isPublicIpv4(bytes: readonly number[]): boolean {
  return !IPV4_NOT_PUBLIC.some(([prefix, bits]) => inPrefix(bytes, prefix, bits));
}

/** IPv6 ranges inside 2000::/3 (global unicast) that are still not public. */
const IPV6_GLOBAL_NOT_PUBLIC: ReadonlyArray<readonly [number[], number]> = [
  [[0x20, 0x01, 0x00, 0x00], 23], // IETF protocol assignments, Teredo 2001::/32 among them
  [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
  [[0x3f, 0xff, 0x00, 0x00], 20], // documentation (RFC 9637)
];

function isPublicIpv6(bytes: readonly number[]): boolean {
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, deprecated): the IPv4 address decides.
  if (inPrefix(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96) || inPrefix(bytes, [], 96)) {
    return isPublicIpv4(bytes.slice(12));
  }
  // 6to4 (2002:a.b.c.d::/48): the embedded IPv4 address decides.
  if (inPrefix(bytes, [0x20, 0x02], 16)) return isPublicIpv4(bytes.slice(2, 6));
  // Only global unicast (2000::/3) can be public: this refuses ::, ::1, fc00::/7, fe80::/10, fec0::/10, ff00::/8,
  // 64:ff9b::/96 (NAT64, which could carry any IPv4 address) and 100::/64 (discard).
  if (!inPrefix(bytes, [0x20], 3)) return false;
  return !IPV6_GLOBAL_NOT_PUBLIC.some(([prefix, bits]) => inPrefix(bytes, prefix, bits));
}

/** Whether `address` (an IPv4 or IPv6 literal) is a public unicast address; false for anything else. */
export function isPublicAddress(address: string): boolean {
  const v4 = ipv4Bytes(address);
  if (v4 !== undefined) return isPublicIpv4(v4);
  const v6 = ipv6Bytes(address);
  if (v6 !== undefined) return isPublicIpv6(v6);
  return false;
}

/** Whether `address` is a loopback address (127.0.0.0/8, ::1, or ::ffff:127.x.y.z). */
export function isLoopbackAddress(address: string): boolean {
  const v4 = ipv4Bytes(address);
  if (v4 !== undefined) return v4[0] === 127;
  const v6 = ipv6Bytes(address);
  if (v6 === undefined) return false;
  if (inPrefix(v6, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96)) return v6[12] === 127;
  return v6.every((byte, index) => byte === (index === 15 ? 1 : 0));
}
