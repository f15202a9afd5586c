/** Tiny but valid media payloads for the content-type fixtures (base64). */

/** A 1×1 red PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** A 10 ms mono 8 kHz 8-bit silent WAV, built so the header sizes are right. */
export const WAV_BASE64 = base64(silentWav(80));

function silentWav(samples: number): Uint8Array {
  const bytes = new Uint8Array(44 + samples);
  const view = new DataView(bytes.buffer);
  const ascii = (text: string, at: number) => {
    for (let i = 0; i < text.length; i++) bytes[at + i] = text.charCodeAt(i);
  };
  ascii("RIFF", 0);
  view.setUint32(4, 36 + samples, true);
  ascii("WAVE", 8);
  ascii("fmt ", 12);
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, 8000, true); // sample rate
  view.setUint32(28, 8000, true); // byte rate
  view.setUint16(32, 1, true); // block align
  view.setUint16(34, 8, true); // bits per sample
  ascii("data", 36);
  view.setUint32(40, samples, true);
  // 8-bit PCM silence is 128, not 0.
  bytes.fill(128, 44);
  return bytes;
}

/** Plain base64 with btoa (no Buffer), so the fixtures run in Workers too. */
function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}
