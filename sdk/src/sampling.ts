/** Whole-session sampling: the same session id is always in or always out, in every process. */

/** FNV-1a over the id's UTF-16 code units, as a fraction in [0, 1). */
export function sessionHashFraction(sessionId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < sessionId.length; i++) {
    hash ^= sessionId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 0x1_0000_0000;
}

/** Whether a session is recorded at `sampleRate` (1 records all, 0 none). */
export function isSampled(sessionId: string, sampleRate: number): boolean {
  if (sampleRate >= 1) return true;
  if (sampleRate <= 0) return false;
  return sessionHashFraction(sessionId) < sampleRate;
}
