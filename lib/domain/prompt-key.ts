// Apart from stored-text.ts (which hashes with node:crypto), so the browser can read prompt keys too.
// Compared after lower-casing and dropping "-" and "_": "prompt", "negative_prompt", "systemPrompt",
// "prompts". Names that only mention a prompt ("prompt_id", "prompt_strength") are not prompt text.
const PROMPT_KEY = /prompts?$/;

export function isPromptKey(key: string): boolean {
  return PROMPT_KEY.test(key.toLowerCase().replace(/[-_]/g, ""));
}
