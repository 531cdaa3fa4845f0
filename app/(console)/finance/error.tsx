"use client";

import { PageError } from "@/components/ui/page-error";

export default function FinanceError({ error, retry }: { error: unknown; retry: () => void }) {
  return <PageError title="The finance figures could not be loaded" error={error} retry={retry} />;
}
