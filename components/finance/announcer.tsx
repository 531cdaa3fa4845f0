"use client";

import { createContext, type ReactNode, useCallback, useContext, useRef, useState } from "react";

const AnnounceContext = createContext<(message: string) => void>(() => {});

/**
 * Says what a decision did after its row has left the list: the message stays visible, is read
 * out by screen readers, and takes focus so keyboard users are not dropped at the top of the page.
 */
export function Announcer({ children }: { children: ReactNode }) {
  const [message, setMessage] = useState("");
  const ref = useRef<HTMLParagraphElement>(null);
  const announce = useCallback((text: string) => {
    setMessage(text);
    requestAnimationFrame(() => ref.current?.focus());
  }, []);
  return (
    <AnnounceContext.Provider value={announce}>
      <div role="status" aria-live="polite" className="mt-3">
        {message ? (
          <p
            ref={ref}
            tabIndex={-1}
            className="rounded border border-green-700 bg-green-50 px-3 py-2 text-sm text-green-900"
            data-testid="finance-announcement"
          >
            <span className="font-medium">Done: </span>
            {message}
          </p>
        ) : null}
      </div>
      {children}
    </AnnounceContext.Provider>
  );
}

export const useAnnounce = () => useContext(AnnounceContext);
