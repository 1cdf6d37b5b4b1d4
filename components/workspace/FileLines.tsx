/**
 * Lines of a file, one element each: the line number is the row's `::before` (from `data-line`), so
 * it is not selected or copied with the text, and a 2,000-line window is 2,000 elements, not 6,000.
 */
export function FileLines({ lines, from, gutter = 'wide' }: { lines: readonly string[]; from: number; gutter?: 'wide' | 'narrow' }) {
  return (
    <>
      {lines.map((line, i) => (
        <div
          key={from + i}
          data-line={from + i}
          className={
            gutter === 'wide'
              ? 'grid grid-cols-[48px_minmax(0,1fr)] whitespace-pre-wrap break-words before:select-none before:pr-3 before:text-right before:text-faint before:content-[attr(data-line)]'
              : 'grid grid-cols-[40px_minmax(0,1fr)] whitespace-pre-wrap [overflow-wrap:anywhere] before:select-none before:pr-3 before:text-right before:text-faint before:content-[attr(data-line)]'
          }
        >
          {line || ' '}
        </div>
      ))}
    </>
  );
}
