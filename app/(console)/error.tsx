"use client";

import { PageError } from "@/components/ui/page-error";

export default function ConsoleError({ error, retry }: { error: unknown; retry: () => void }) {
  return <PageError title="This page could not be loaded" error={error} retry={retry} />;
}
