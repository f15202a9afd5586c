/** Protocol revisions this library speaks, and which era each belongs to. */

export const MODERN_VERSIONS = ["2026-07-28"] as const;
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

export type ModernVersion = (typeof MODERN_VERSIONS)[number];
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];
export type ProtocolVersion = ModernVersion | LegacyVersion;

export const LATEST_MODERN_VERSION: ModernVersion = "2026-07-28";
export const LATEST_LEGACY_VERSION: LegacyVersion = "2025-11-25";

/** Modern: per-request `_meta`, stateless. Legacy: `initialize` handshake, a session. */
export type Era = "modern" | "legacy";

export function isModernVersion(version: unknown): version is ModernVersion {
  return (MODERN_VERSIONS as readonly unknown[]).includes(version);
}

export function isLegacyVersion(version: unknown): version is LegacyVersion {
  return (LEGACY_VERSIONS as readonly unknown[]).includes(version);
}

export function eraOf(version: string): Era | undefined {
  if (isModernVersion(version)) return "modern";
  if (isLegacyVersion(version)) return "legacy";
  // Dates sort as strings; an unknown version newer than 2026-07-28 is still modern in shape.
  return version >= LATEST_MODERN_VERSION ? "modern" : undefined;
}
