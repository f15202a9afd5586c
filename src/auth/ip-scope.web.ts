/**
 * The web build's address checks (no node:net there): addresses parsed to bytes and compared
 * with the same special-purpose ranges. test/auth/ip-scope-web.test.ts holds it to node:net's
 * answers.
 */
import type * as node from "./ip-scope.js";
import { NOT_PUBLIC_V4, NOT_PUBLIC_V6 } from "./special-ranges.js";

const V4 =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseV4(text: string): number[] | undefined {
  const match = V4.exec(text);
  return match ? match.slice(1, 5).map(Number) : undefined;
}

/** The 16 bytes of an IPv6 address (zone id ignored), or undefined if it is not one. */
function parseV6(text: string): number[] | undefined {
  const address = text.replace(/%[^%]+$/, "");
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      const v4 = i === pieces.length - 1 && piece.includes(".") ? parseV4(piece) : undefined;
      if (v4) out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      else if (GROUP.test(piece)) out.push(Number.parseInt(piece, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  // A dotted quad may only end the address.
  if (halves.length === 2 && halves[0]!.includes(".")) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return all.flatMap((group) => [group >> 8, group & 255]);
}

export const isIP: typeof node.isIP = (input) => {
  if (parseV4(input)) return 4;
  return parseV6(input) ? 6 : 0;
};

function inRange(bytes: number[], network: number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit++) {
    const mask = 0x80 >> (bit % 8);
    if ((bytes[bit >> 3]! & mask) !== (network[bit >> 3]! & mask)) return false;
  }
  return true;
}

const RANGES_V4 = NOT_PUBLIC_V4.map(([network, prefix]) => [parseV4(network)!, prefix] as const);
const RANGES_V6 = NOT_PUBLIC_V6.map(([network, prefix]) => [parseV6(network)!, prefix] as const);

function publicV4(bytes: number[]): boolean {
  return !RANGES_V4.some(([network, prefix]) => inRange(bytes, network, prefix));
}

export const isPublicAddress: typeof node.isPublicAddress = (address) => {
  const v4 = parseV4(address);
  if (v4) return publicV4(v4);
  const v6 = parseV6(address);
  if (!v6) return false;
  const prefix96 = v6.slice(0, 12);
  // IPv4-mapped (::ffff:0:0/96) and NAT64's well-known prefix (64:ff9b::/96) carry an IPv4
  // address in their last 32 bits: judged as that address.
  const mapped = prefix96.every((byte, i) => byte === (i < 10 ? 0 : 0xff));
  const nat64 = prefix96.every((byte, i) => byte === ([0, 0x64, 0xff, 0x9b][i] ?? 0));
  if (mapped || nat64) return publicV4(v6.slice(12));
  return !RANGES_V6.some(([network, prefix]) => inRange(v6, network, prefix));
};
