/**
 * IANA time zone names (America/New_York, Europe/Copenhagen, UTC) as record fields: validated by
 * the runtime's zone database and stored as given, the case fixed (america/new_york → America/New_York).
 * Offsets (+05:00) and unknown names are refused (400).
 */
import { zClearableNormalized } from './zod-kit';

const ZONE_RE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;
// The answer per name is kept (bounded: the names in use are few).
const canonical = new Map<string, string | null>();

let known: Map<string, string> | null = null;
const knownNames = (): Map<string, string> =>
  (known ??= new Map(Intl.supportedValuesOf('timeZone').map((n) => [n.toLowerCase(), n])));

/** The IANA name `tz` in its usual spelling (case fixed), or null when it is not one. */
export function canonicalTimeZone(tz: string): string | null {
  let name = canonical.get(tz);
  if (name !== undefined) return name;
  name = null;
  if (tz.length <= 64 && ZONE_RE.test(tz)) {
    try {
      // ICU resolves some names to older aliases (Asia/Kolkata → Asia/Calcutta): its answer only fixes the case.
      const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
      name = resolved.toLowerCase() === tz.toLowerCase() ? resolved : (knownNames().get(tz.toLowerCase()) ?? tz);
    } catch {
      name = null;
    }
  }
  if (canonical.size >= 1000) canonical.clear();
  canonical.set(tz, name);
  return name;
}

/** An optional IANA time zone: null or "" clears it. */
export const timeZoneField = zClearableNormalized(
  64,
  canonicalTimeZone,
  'must be an IANA time zone such as America/New_York',
).describe('IANA time zone of the contact (e.g. America/New_York); sequence sends follow its local time');
