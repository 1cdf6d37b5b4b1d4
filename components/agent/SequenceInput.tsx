'use client';

import { formText, UrlForm } from '../ui/UrlForm';

/**
 * A sequence number field (0…latest) that commits on Enter or blur, with a "latest" shortcut. It is
 * the query parameter `param` of the page, so Enter works even before the page has hydrated. The
 * field is uncontrolled (keyed by the current value): hydration never resets what a user typed.
 */
export function SequenceInput({ value, latest, param, onChange, testId = 'sequence-input' }: {
  value: number;
  latest: number;
  param: string;
  onChange: (seq: number | null) => void;
  testId?: string;
}) {
  const commit = (text: string | null, field: HTMLInputElement | null) => {
    const n = Number(text);
    if (text !== null && Number.isInteger(n) && n >= 0 && n <= latest) {
      if (n !== value) onChange(n === latest ? null : n);
    } else if (field) field.value = String(value);
  };
  return (
    <UrlForm
      fields={[param]}
      onSubmit={(values, form) => commit(formText(values, param), form.elements.namedItem(param) as HTMLInputElement | null)}
      className="inline-flex items-center gap-1.5 text-[12px] text-muted"
    >
      <label htmlFor={testId}>At sequence</label>
      <span className="inline-flex items-center rounded-md border border-line bg-white pl-1.5 shadow-xs">
        <span className="font-mono text-faint">#</span>
        <input
          key={value}
          id={testId}
          name={param}
          data-testid={testId}
          type="number"
          min={0}
          max={latest}
          defaultValue={value}
          onBlur={(e) => commit(e.currentTarget.value.trim() || null, e.currentTarget)}
          className="h-7 w-16 bg-transparent px-1 font-mono text-[12px] text-ink outline-none"
        />
      </span>
      <span className="text-faint">of {latest}</span>
      {value !== latest && (
        <button type="button" onClick={() => onChange(null)} className="text-accent hover:underline" data-testid={`${testId}-latest`}>
          latest
        </button>
      )}
    </UrlForm>
  );
}
