/**
 * IANA special-purpose ranges (IPv4 and IPv6 registries): nothing on the internet at large
 * lives there. Read by ip-scope.ts (node:net's BlockList) and ip-scope.web.ts alike.
 */
export const NOT_PUBLIC_V4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

export const NOT_PUBLIC_V6: ReadonlyArray<readonly [string, number]> = [
  // Unspecified, loopback and the old IPv4-compatible form (::7f00:1).
  ["::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  // Teredo and 6to4 carry an IPv4 address of any kind.
  ["2001::", 32],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
];
