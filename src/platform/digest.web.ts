/**
 * The web build's SHA-256 and HMAC-SHA256: synchronous, because requestState is sealed and
 * opened inside synchronous code and crypto.subtle answers only with promises. @noble/hashes
 * (audited, no dependencies, no code generation) does the hashing; Node uses node:crypto
 * (digest.ts). test/platform/bytes.test.ts holds the two to the same answers.
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { utf8 } from "./bytes.js";
import type * as node from "./digest.js";

const bytesOf = (data: Uint8Array | string) => (typeof data === "string" ? utf8(data) : data);

export const sha256: typeof node.sha256 = (data) => nobleSha256(bytesOf(data));

export const hmacSha256: typeof node.hmacSha256 = (key, data) =>
  hmac(nobleSha256, key, bytesOf(data));
