export function DemoBanner() {
  return (
    <div role="status" className="bg-amber-300 px-4 py-1 text-center text-sm font-medium text-slate-900">
      {/* One line on a phone too, so the page's own content starts near the top. */}
      <span className="sm:hidden">Demo mode: sample data, no real money.</span>
      <span className="hidden sm:inline">
        Demo mode: sample data and shared demo accounts. Do not use with real money.
      </span>
    </div>
  );
}
