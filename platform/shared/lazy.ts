/** Builds a dependency on first use; a build that throws yields null (the step using it then fails clearly). */
export function lazy<T>(make: () => T): () => T | null {
  let value: T | null | undefined;
  return () => {
    if (value === undefined) {
      try {
        value = make();
      } catch {
        value = null;
      }
    }
    return value;
  };
}
