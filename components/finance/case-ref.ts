const CASE_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The case ID in what finance pasted: the case page's address, or the ID itself. */
export const caseIdIn = (text: string): string | undefined => text.match(CASE_ID)?.[0];

/** Where a case is, in words: "resolved at generation failed", "parked at delivery". */
export function casePlaceWords(place: { stage: string; state: string }): string {
  const stage = place.stage.replaceAll("_", " ");
  return place.state === "resolved" ? `resolved at ${stage}` : `${place.state.replaceAll("_", " ")} at ${stage}`;
}
