'use client';

import { useEffect, useRef, useState } from 'react';
import { firstWindow, windowAround, type LineWindow } from '../line-window';
import { sectionFromHash, sectionAnchor } from '../routes';

/** The record id a `#record-…` hash of the page names, following the hash as it changes. */
function useHashSection(): string | null {
  const [target, setTarget] = useState<string | null>(null);
  useEffect(() => {
    const read = () => setTarget(sectionFromHash(window.location.hash));
    read();
    window.addEventListener('hashchange', read);
    return () => window.removeEventListener('hashchange', read);
  }, []);
  return target;
}

/**
 * The drawn window of a file's `total` lines. When the page's hash names a section (`sectionLines`:
 * record id → its first line), the window moves to show it and it is scrolled into view once drawn —
 * the section may be far below what is drawn at first, so the browser's own jump cannot reach it.
 */
export function useLineWindow(total: number, sectionLines: ReadonlyMap<string, number>) {
  const [win, setWin] = useState<LineWindow>(() => firstWindow(total));
  const target = useHashSection();
  const targetLine = target === null ? undefined : sectionLines.get(target);
  const scrolled = useRef<string | null>(null);
  useEffect(() => {
    if (targetLine !== undefined) setWin((w) => windowAround(w, targetLine, total));
  }, [targetLine, total]);
  useEffect(() => {
    if (target === null || targetLine === undefined || scrolled.current === target) return;
    const el = document.getElementById(sectionAnchor(target));
    if (!el) return;
    scrolled.current = target;
    el.scrollIntoView({ block: 'start' });
  }, [target, targetLine, win]);
  return { win, setWin, target };
}
