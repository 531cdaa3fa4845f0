import { SelectField } from "@/components/ui/form";
import { BULK_PACE_NAMES, BULK_PACE_WORDS, type BulkPace } from "@/lib/domain/bulk-jobs";

/** How fast a confirmed bulk action goes (decision 065). */
export function PaceField({
  id,
  value,
  onChange,
}: {
  id: string;
  value: BulkPace;
  onChange: (pace: BulkPace) => void;
}) {
  return (
    <SelectField
      id={id}
      path="pace"
      label="Pace"
      hint="It runs in batches you can watch and cancel; what is done stays done."
      value={value}
      onChange={(e) => onChange(e.target.value as BulkPace)}
    >
      {BULK_PACE_NAMES.map((pace) => (
        <option key={pace} value={pace}>
          {BULK_PACE_WORDS[pace]}
        </option>
      ))}
    </SelectField>
  );
}
