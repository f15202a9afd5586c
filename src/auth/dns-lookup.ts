/** The resolver the OAuth client checks names with on Node: dns.lookup. Web: dns-lookup.web.ts. */
import { lookup } from "node:dns";
import type { LookupFunction } from "node:net";

export const defaultLookup: LookupFunction = lookup;
