"use client";

import { useEffect, useRef } from "react";
import { Button } from "@/components/ui/button";

export default function ProfileError({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    headingRef.current?.focus();
  }, []);
  return (
    <div role="alert" className="rounded border border-red-300 bg-red-50 p-4">
      <h1 ref={headingRef} tabIndex={-1} className="text-lg font-semibold text-red-900">
        Your profile could not be loaded
      </h1>
      <p className="mt-1 text-sm text-red-900">
        Nothing was changed. Try again; if it keeps failing, check the server log.
      </p>
      <Button className="mt-3" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
