/**
 * Whether an IP address is one the internet at large can have, on Node (node:net's isIP and
 * BlockList). The web build swaps this file for ip-scope.web.ts.
 */
import { BlockList, isIP } from "node:net";
import { NOT_PUBLIC_V4, NOT_PUBLIC_V6 } from "./special-ranges.js";

export { isIP };

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of NOT_PUBLIC_V4) NOT_PUBLIC.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of NOT_PUBLIC_V6) NOT_PUBLIC.addSubnet(network, prefix, "ipv6");

/** Whether `address` (an IP address, no brackets) is one the internet at large can have. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !NOT_PUBLIC.check(address, "ipv4");
  // IPv4-mapped (::ffff:a.b.c.d) is checked as the IPv4 address by BlockList itself; NAT64's
  // well-known prefix (RFC 6052) carries one in its last 32 bits.
  // Its last groups may be written short (64:ff9b:: is 0.0.0.0, 64:ff9b::1 is 0.0.0.1) or dotted.
  const dotted = /^64:ff9b::(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (dotted) return isPublicAddress(dotted[1] as string);
  const nat64 = /^64:ff9b::(?:(?:([0-9a-f]{1,4}):)?([0-9a-f]{1,4}))?$/i.exec(address);
  if (nat64) {
    const high = Number.parseInt(nat64[1] ?? "0", 16);
    const low = Number.parseInt(nat64[2] ?? "0", 16);
    return isPublicAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  return !NOT_PUBLIC.check(address, "ipv6");
}
