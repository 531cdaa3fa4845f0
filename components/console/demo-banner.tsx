export function DemoBanner() {
  return (
    <div role="status" className="bg-amber-300 px-4 py-1 text-center text-sm font-medium text-slate-900">
      Demo mode: sample data and shared demo accounts. Do not use with real money.
    </div>
  );
}
