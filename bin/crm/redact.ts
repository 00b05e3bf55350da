/** The password of a connection URL never reaches the terminal. */
export function redactUrl(text: string, url: string | undefined): string {
  if (!url) return text;
  try {
    const { password } = new URL(url);
    return password ? text.split(password).join('***') : text;
  } catch {
    return text;
  }
}
