import { describe, expect, it } from "vitest";
import { requestFields, requestGist } from "./request-fields";
import { storedText } from "./stored-text";

describe("requestFields", () => {
  const summary = storedText(
    { prompt: "Product video for SKU 2001", duration_seconds: 5, resolution: "1080p", seed: 42 },
    { storePrompts: false },
  );

  it("reads a stored request as labelled facts, the prompt as its length only", () => {
    expect(requestFields(summary).map((f) => `${f.label}: ${f.value}`)).toEqual([
      "Prompt: 26 characters",
      "Duration: 5 s",
      "Resolution: 1080p",
      "Seed: 42",
    ]);
  });

  it("gives the request's gist in one line", () => {
    expect(requestGist(summary)).toBe("Prompt: 26 characters, 1080p, 5 s");
    expect(requestGist({ seed: 1 })).toBeNull();
    expect(requestGist(null)).toBeNull();
  });

  it("counts a prompt kept as text (STORE_PROMPTS=1) the same way", () => {
    expect(requestFields({ negative_prompt: "blur" })).toEqual([
      { key: "negative_prompt", label: "Negative prompt", value: "4 characters", time: false },
    ]);
  });
});
