/** The web build's SHA-256 and HMAC-SHA256: plain JavaScript (sha256.ts), no node:crypto. */
import { utf8 } from "./bytes.js";
import type * as node from "./digest.js";
import { sha256 as hash, hmacSha256 as hmac } from "./sha256.js";

const bytesOf = (data: Uint8Array | string) => (typeof data === "string" ? utf8(data) : data);

export const sha256: typeof node.sha256 = (data) => hash(bytesOf(data));

export const hmacSha256: typeof node.hmacSha256 = (key, data) => hmac(key, bytesOf(data));
