'use client';

import { useEffect, useState } from 'react';

/** The lineage's version cards, in the order they are drawn. */
function versionCards(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('[data-testid="version"]')];
}

/** The card named by the URL's anchor (the selected version), or -1. */
function selectedIndex(cards: HTMLElement[]): number {
  return cards.findIndex((c) => `#${c.id}` === window.location.hash);
}

/** The first card still on screen (where j/k start when no version is selected yet). */
function firstOnScreen(cards: HTMLElement[]): number {
  return Math.max(0, cards.findIndex((c) => c.getBoundingClientRect().bottom > 80));
}

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard API (an insecure origin): the old selection-based copy.
    const area = document.createElement('textarea');
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}

/**
 * Lineage keyboard: `j` / `k` move to the next / previous version card (focused, scrolled to, its
 * anchor put in the URL), `y` copies a permalink to the current version (`…/memories/<id>#v<seq>`).
 * Returns a status sentence for a live region.
 */
export function useVersionKeys(): string {
  const [status, setStatus] = useState('');
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey || typingIn(event.target)) return;
      if (!['j', 'k', 'y'].includes(event.key)) return;
      const cards = versionCards();
      if (cards.length === 0) return;
      const at = selectedIndex(cards);
      if (event.key === 'y') {
        const card = cards[at >= 0 ? at : firstOnScreen(cards)]!;
        const link = `${window.location.origin}${window.location.pathname}${window.location.search}#${card.id}`;
        event.preventDefault();
        void copyText(link).then(() => setStatus(`Copied the link to version #${card.dataset.seq}`));
        return;
      }
      const next = at < 0 ? firstOnScreen(cards) : Math.min(cards.length - 1, Math.max(0, at + (event.key === 'j' ? 1 : -1)));
      const card = cards[next]!;
      event.preventDefault();
      window.history.replaceState(window.history.state, '', `#${card.id}`);
      card.tabIndex = -1;
      card.focus({ preventScroll: true });
      card.scrollIntoView({ block: 'start' });
      setStatus(`Version #${card.dataset.seq}, ${next + 1} of ${cards.length}`);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return status;
}
