import { AppError } from "@/lib/errors";

/** The AppError a call is refused with; the test fails if it succeeds or fails otherwise. */
export const refusal = (work: Promise<unknown>): Promise<AppError> =>
  work.then(
    () => Promise.reject(new Error("expected a refusal")),
    (error: unknown) => (error instanceof AppError ? error : Promise.reject(error)),
  );
