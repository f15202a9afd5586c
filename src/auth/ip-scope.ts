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
  const nat64 = /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (nat64) {
    const high = Number.parseInt(nat64[1] as string, 16);
    const low = Number.parseInt(nat64[2] as string, 16);
    return isPublicAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  return !NOT_PUBLIC.check(address, "ipv6");
}
