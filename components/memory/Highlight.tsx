/**
 * `text` with the given [start, end) ranges wrapped in <mark> (plain text only). The ranges come
 * from the search engine's matcher, so only what really matched is marked — never a look-alike
 * substring such as 10.20.0.5 inside 10.20.0.53.
 */
export function Highlight({ text, ranges }: { text: string; ranges: readonly (readonly [number, number])[] }) {
  const parts: { text: string; hit: boolean }[] = [];
  let from = 0;
  for (const [start, end] of ranges) {
    if (start < from || end > text.length || end <= start) continue;
    if (start > from) parts.push({ text: text.slice(from, start), hit: false });
    parts.push({ text: text.slice(start, end), hit: true });
    from = end;
  }
  if (from < text.length) parts.push({ text: text.slice(from), hit: false });
  return (
    <>
      {parts.map((p, i) =>
        p.hit ? (
          <mark key={i} data-testid="search-hit" className="rounded-sm bg-amber-200/80 px-px text-ink">
            {p.text}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}
