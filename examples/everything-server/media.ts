/** Tiny but valid media payloads for the content-type fixtures (base64). */
import { Buffer } from "node:buffer";

/** A 1×1 red PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** A 10 ms mono 8 kHz 8-bit silent WAV, built so the header sizes are right. */
export const WAV_BASE64 = silentWav(80).toString("base64");

function silentWav(samples: number): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + samples, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24); // sample rate
  header.writeUInt32LE(8000, 28); // byte rate
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write("data", 36, "ascii");
  header.writeUInt32LE(samples, 40);
  // 8-bit PCM silence is 128, not 0.
  return Buffer.concat([header, Buffer.alloc(samples, 128)]);
}
