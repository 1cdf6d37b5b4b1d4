export default function FleetPage() {
  return (
    <main className="mx-auto max-w-6xl p-6">
      <h1 className="text-xl font-semibold">ALF Lineage</h1>
    </main>
  );
}
