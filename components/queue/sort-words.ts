import type { QueueSort } from "@/lib/validation/list-cases";

/** Every queue order in words, in the order the "Sort" choice lists them (the column links use the same). */
export const SORT_WORDS: Readonly<Record<QueueSort, string>> = {
  age: "oldest first",
  newest: "newest first",
  amount: "most money first",
  smallest: "least money first",
  stage: "by stage, first stage first",
  stage_desc: "by stage, last stage first",
  provider: "by provider, A to Z",
  provider_desc: "by provider, Z to A",
  attempt: "longest since the last attempt first, never attempted first",
  attempt_recent: "latest attempt first, never attempted last",
};
