import { Time } from "@/components/ui/time";
import type { DemoProducerKey } from "@/lib/services/admin/demo-producer";

/**
 * The demo's cases name a producer key that is not in the table above: the demo seed parked them
 * under a principal of its own, with no stored key. Said here, so "no keys" and "every case came
 * from demo-shop" do not contradict each other.
 */
export function DemoProducerKeyNote({ producer }: { producer: DemoProducerKey }) {
  return (
    <section
      aria-labelledby="demo-producer-heading"
      data-testid="demo-producer-key"
      className="rounded border border-sky-300 bg-sky-50 p-4 text-sm text-slate-900"
    >
      <h2 id="demo-producer-heading" className="font-semibold">
        Demo producer key <code>{producer.name}</code>: from the demo seed, not stored, cannot be revoked here
      </h2>
      <p className="mt-1">
        The demo&apos;s sample cases were parked as <q>api key {producer.name}</q> when this database was first started
        in demo mode (<code>DEMO</code>), on <Time at={producer.seededAt} />: the demo seed hands them straight to the
        parking service under that name. No key was issued for it, so there is no secret, no request can use it, and
        there is nothing to revoke. The audit trail names it by the id <code data-technical>{producer.keyId}</code>.
      </p>
      <p className="mt-1">
        To send new cases as {producer.name} (for example with <code>npm run demo:traffic</code>), create an API key
        named <code>{producer.name}</code> above.
      </p>
    </section>
  );
}
