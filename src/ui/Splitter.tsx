/**
 * A divider: between the simulation and the analysis panes (horizontal,
 * sets --sim-share) or between the editor and the right column (vertical,
 * sets --editor-share). Drag it, or focus it and use the arrow keys
 * (Home/End: smallest/largest). Each share is kept across reloads.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';

interface Kind { key: string; prop: string; min: number; max: number; def: number; label: string; testid: string }
const KINDS: Record<'horizontal' | 'vertical', Kind> = {
  horizontal: { key: 'xdp-lab:sim-share', prop: '--sim-share', min: 20, max: 85, def: 60, label: 'Resize the simulation and the analysis panes', testid: 'splitter' },
  vertical: { key: 'xdp-lab:editor-share', prop: '--editor-share', min: 25, max: 70, def: 40, label: 'Resize the editor and the simulation', testid: 'splitter-v' },
};

function load(k: Kind): number {
  const v = Number(localStorage.getItem(k.key));
  return Number.isFinite(v) && v >= k.min && v <= k.max && localStorage.getItem(k.key) !== null ? v : k.def;
}

/** Sets the share (percent of `target`'s height, or width when vertical) on the element that `target` names. */
export function Splitter({ target, orientation = 'horizontal' }: { target: string; orientation?: 'horizontal' | 'vertical' }) {
  const k = KINDS[orientation];
  const { min: MIN, max: MAX, key: KEY } = k;
  const [share, setShare] = useState(() => load(k));
  const dragging = useRef(false);
  useEffect(() => {
    document.getElementById(target)?.style.setProperty(k.prop, `${share}%`);
    try {
      localStorage.setItem(KEY, String(share));
    } catch {
      /* storage blocked: the split lives for this session */
    }
  }, [share, target, k.prop, KEY]);
  const clamp = (v: number) => Math.round(Math.max(MIN, Math.min(MAX, v)));
  const onMove = (e: PointerEvent<HTMLDivElement>) => {
    if (!dragging.current) return;
    const box = document.getElementById(target)?.getBoundingClientRect();
    if (!box) return;
    if (orientation === 'vertical') {
      if (box.width > 0) setShare(clamp(((e.clientX - box.left) / box.width) * 100));
    } else if (box.height > 0) setShare(clamp(((e.clientY - box.top) / box.height) * 100));
  };
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const less = orientation === 'vertical' ? 'ArrowLeft' : 'ArrowUp';
    const more = orientation === 'vertical' ? 'ArrowRight' : 'ArrowDown';
    const next = e.key === less ? share - 5 : e.key === more ? share + 5 : e.key === 'Home' ? MIN : e.key === 'End' ? MAX : null;
    if (next === null) return;
    e.preventDefault();
    setShare(clamp(next));
  };
  return (
    <div
      className={`splitter ${orientation}`}
      role="separator"
      aria-orientation={orientation}
      aria-label={k.label}
      aria-valuemin={MIN}
      aria-valuemax={MAX}
      aria-valuenow={share}
      tabIndex={0}
      data-testid={k.testid}
      onPointerDown={(e) => {
        dragging.current = true;
        e.currentTarget.setPointerCapture(e.pointerId);
      }}
      onPointerMove={onMove}
      onPointerUp={() => (dragging.current = false)}
      onKeyDown={onKey}
    />
  );
}
