/**
 * The overview's age buckets, with the age in seconds at which each one ends. Pure constants, so the
 * browser's chart and the overview service name them from one place without the chart importing a service.
 */
export const AGE_BUCKETS = ["< 1 h", "1–6 h", "6–24 h", "1–3 d", "> 3 d"] as const;
export const AGE_BUCKET_ENDS_SECONDS = [3_600, 21_600, 86_400, 259_200] as const;
