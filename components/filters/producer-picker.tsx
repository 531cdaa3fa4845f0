"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Button } from "@/components/ui/button";
import { SelectField } from "@/components/ui/form";

/**
 * One producer's figures or every producer's, kept in the URL (`producer`, as the queue's filter),
 * so a view can be bookmarked and shared. Choosing applies at once; without JavaScript the form
 * submits as a plain GET. Other parameters of the page are kept, except a list cursor.
 */
export function ProducerPicker({ producers, current }: { producers: string[]; current: string | undefined }) {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const choices = current && !producers.includes(current) ? [...producers, current] : producers;
  const kept = [...search.entries()].filter(([name]) => name !== "producer" && name !== "cursor");
  return (
    <form method="get" className="flex flex-wrap items-end gap-2" aria-label="Producer">
      {kept.map(([name, value]) => (
        <input key={`${name}=${value}`} type="hidden" name={name} value={value} />
      ))}
      <SelectField
        id="producer-picker"
        path="producer"
        name="producer"
        label="Producer"
        defaultValue={current ?? ""}
        className="min-w-48"
        onChange={(event) => {
          const params = new URLSearchParams(kept);
          if (event.currentTarget.value) params.set("producer", event.currentTarget.value);
          const text = params.toString();
          router.replace(text ? `${pathname}?${text}` : pathname, { scroll: false });
        }}
      >
        <option value="">All producers</option>
        {choices.map((producer) => (
          <option key={producer} value={producer}>
            {producer}
          </option>
        ))}
      </SelectField>
      <noscript>
        <Button type="submit">Show</Button>
      </noscript>
    </form>
  );
}
