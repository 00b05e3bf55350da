/**
 * A short unique suffix for names in tests (its own module so support files can use it without importing factories).
 */
let seq = 0;
export const unique = (): string => `${Date.now().toString(36)}${(++seq).toString(36)}`;
