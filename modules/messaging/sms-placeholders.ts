/**
 * `{{name}}` placeholders of bulk SMS and templates (pure): names are letters, digits, _ . and -,
 * spaces inside the braces are ignored. A placeholder without a value is an error for that
 * recipient, never sent as literal braces.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]{1,100})\s*\}\}/g;

export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

export function fillPlaceholders(
  text: string,
  values: Record<string, string | number | boolean | null>,
): { text: string } | { missing: string[] } {
  const missing = placeholdersOf(text).filter((name) => values[name] === undefined || values[name] === null);
  if (missing.length) return { missing };
  return { text: text.replace(PLACEHOLDER, (_, name: string) => String(values[name])) };
}
