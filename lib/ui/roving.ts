/**
 * Keyboard movement inside a composite widget (ARIA tabs, a radio group): the arrow keys, Home and
 * End choose the neighbouring, first or last item, wrapping around. Pure, so the rule is tested alone.
 */
export function rovingTarget(key: string, index: number, count: number, orientation: 'horizontal' | 'vertical' = 'horizontal'): number | null {
  if (count <= 0) return null;
  const next = orientation === 'horizontal' ? 'ArrowRight' : 'ArrowDown';
  const prev = orientation === 'horizontal' ? 'ArrowLeft' : 'ArrowUp';
  if (key === next) return (index + 1) % count;
  if (key === prev) return (index - 1 + count) % count;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return null;
}

/**
 * A keydown handler for the items of a roving-tabindex group: moves focus to the target item (the
 * group's `[role=<role>]` children) and calls `choose` with its index.
 */
export function rovingKeyDown(role: 'tab' | 'radio', index: number, count: number, choose: (index: number) => void) {
  return (event: React.KeyboardEvent<HTMLElement>) => {
    const target = rovingTarget(event.key, index, count);
    if (target === null) return;
    event.preventDefault();
    const items = event.currentTarget.parentElement?.querySelectorAll<HTMLElement>(`[role="${role}"]`);
    items?.[target]?.focus();
    choose(target);
  };
}
