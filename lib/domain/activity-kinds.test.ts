import { describe, expect, it } from "vitest";
import { ACTIVITY_GROUP_NAMES, ACTIVITY_GROUP_WORDS, ALL_ACTIVITY_KINDS, activitySubject } from "./activity-kinds";
import { hasWordsFor } from "./timeline-words";

describe("the activity feed's kinds", () => {
  it("each have a sentence, and each group has words", () => {
    expect(ALL_ACTIVITY_KINDS.filter((kind) => !hasWordsFor(kind))).toEqual([]);
    expect(ACTIVITY_GROUP_NAMES.every((group) => ACTIVITY_GROUP_WORDS[group].length > 0)).toBe(true);
  });

  it("name what a change was about, never by an ID", () => {
    expect(activitySubject({ id: "6f1c1d5e-8a52-4c47-9b8f-0d1f2a3b4c5d", email: "ana@example.com" })).toBe(
      "ana@example.com",
    );
    expect(activitySubject({ name: "6f1c1d5e-8a52-4c47-9b8f-0d1f2a3b4c5d" }, { producer: "shop" })).toBe("shop");
    expect(activitySubject(null, {})).toBeNull();
  });
});
