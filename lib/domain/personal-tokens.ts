/**
 * The lifetimes a person may give a personal token. Kept apart from the zod schemas that check
 * them, so the profile form can offer them without shipping zod to the browser, where its
 * compiler probe is an eval the Content-Security-Policy reports as a violation.
 */
export const PERSONAL_TOKEN_EXPIRY_DAYS = [7, 30, 90, 365] as const;
