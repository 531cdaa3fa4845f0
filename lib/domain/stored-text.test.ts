import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { digestPrompt, isPromptKey, storedText } from "./stored-text";

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("request summaries keep prompts as digests", () => {
  it("replaces every prompt, at any depth, with its SHA-256 and length", () => {
    const request = {
      model: "acme/video-1",
      prompt: "a red fox in the snow",
      input: { negative_prompt: "blurry", systemPrompt: "be cinematic", prompts: ["one", "two"] },
      duration_seconds: 5,
    };
    const stored = storedText(request, { storePrompts: false });
    expect(stored).toEqual({
      model: "acme/video-1",
      prompt: { sha256: sha("a red fox in the snow"), length: 21 },
      input: {
        negative_prompt: { sha256: sha("blurry"), length: 6 },
        systemPrompt: { sha256: sha("be cinematic"), length: 12 },
        prompts: [
          { sha256: sha("one"), length: 3 },
          { sha256: sha("two"), length: 3 },
        ],
      },
      duration_seconds: 5,
    });
    expect(JSON.stringify(stored)).not.toContain("fox");
  });

  it("digests the whole prompt, past the sanitiser's truncation, and counts characters", () => {
    const long = "🦊".repeat(3000);
    expect(storedText({ prompt: long }, { storePrompts: false })).toEqual({
      prompt: { sha256: sha(long), length: 3000 },
    });
    expect(digestPrompt("é🦊")).toEqual({ sha256: sha("é🦊"), length: 2 });
  });

  it("digests text nested inside a structured prompt", () => {
    const stored = storedText({ prompt: { text: "secret idea", weight: 1 } }, { storePrompts: false });
    expect(stored).toEqual({ prompt: { text: { sha256: sha("secret idea"), length: 11 }, weight: 1 } });
  });

  it("keeps the text when the operator turns full storage on, still sanitised", () => {
    const stored = storedText({ prompt: "a cat", api_key: "sk-abc" }, { storePrompts: true });
    expect(stored).toEqual({ prompt: "a cat", api_key: "[redacted]" });
  });

  it("tells prompt text from fields that only mention prompts", () => {
    for (const key of ["prompt", "Prompt", "negative_prompt", "negative-prompt", "systemPrompt", "prompts"]) {
      expect(isPromptKey(key)).toBe(true);
    }
    for (const key of ["prompt_id", "prompt_strength", "model", "promptness_score"]) {
      expect(isPromptKey(key)).toBe(false);
    }
  });

  it("digests a prompt written into free text, as a note or a summary carries it", () => {
    const note = 'customer wrote back.\nprompt: a red fox in the snow\nnegative_prompt="blurry" prompt_id: 42';
    const stored = storedText(note, { storePrompts: false });
    expect(stored).toBe(
      `customer wrote back.\nprompt: [prompt sha256:${sha("a red fox in the snow")} length:21]\n` +
        `negative_prompt=[prompt sha256:${sha("blurry")} length:6] prompt_id: 42`,
    );
    expect(storedText({ details: { log: "Prompt = 'a cat'" } }, { storePrompts: false })).toEqual({
      details: { log: `Prompt = [prompt sha256:${sha("a cat")} length:5]` },
    });
    expect(storedText("the prompt was wrong", { storePrompts: false })).toBe("the prompt was wrong");
    expect(storedText(note, { storePrompts: true })).toBe(note);
  });

  it("digests the whole of a quoted prompt that spans lines, leaving none of its lines in clear", () => {
    const note = 'prompt: "a fox in the snow,\nslow dolly zoom"\nthanks';
    expect(storedText(note, { storePrompts: false })).toBe(
      `prompt: [prompt sha256:${sha("a fox in the snow,\nslow dolly zoom")} length:34]\nthanks`,
    );
  });

  it("leaves a digest alone when the text is stored again, so a second pass hides nothing", () => {
    const once = storedText("prompt: a red fox in the snow", { storePrompts: false });
    expect(storedText(once, { storePrompts: false })).toBe(once);
    expect(storedText(`note\n${once}`, { storePrompts: false })).toBe(`note\n${once}`);
  });
});
