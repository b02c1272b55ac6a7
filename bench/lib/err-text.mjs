// The one line of an error the report shows.

/** The first line of what was thrown (an Error's message, else its string form). @param {unknown} e */
export function errText(e) {
  return (e instanceof Error ? e.message : String(e)).split("\n")[0];
}
