/** Shorter search text has no trigram to look up, so it is matched against whole IDs only. */
export const PARTIAL_SEARCH_MIN = 3;

/** A LIKE pattern that finds the text anywhere, its own `%`, `_` and `\` taken literally. */
export const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
