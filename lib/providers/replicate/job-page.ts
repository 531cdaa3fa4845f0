/**
 * Replicate's own page for a prediction. Every prediction object carries it as `urls.web`
 * (changelog 2025-05-19, "Web URLs now in prediction objects"), always of this form, so the console
 * can link a stored prediction ID without asking the API again. Pure.
 */
export function replicatePredictionPage(predictionId: string): string {
  return `https://replicate.com/p/${encodeURIComponent(predictionId)}`;
}
