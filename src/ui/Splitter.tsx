/**
 * The divider between the simulation and the analysis panes: drag it, or
 * focus it and use the arrow keys (Home/End: smallest/largest). The share
 * the simulation gets is kept across reloads.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';

const KEY = 'xdp-lab:sim-share';
const MIN = 20;
const MAX = 85;
const DEFAULT = 55;

function load(): number {
  const v = Number(localStorage.getItem(KEY));
  return Number.isFinite(v) && v >= MIN && v <= MAX ? v : DEFAULT;
}

/** Sets --sim-share (percent of the right column) on the element that `target` names. */
export function Splitter({ target }: { target: string }) {
  const [share, setShare] = useState(load);
  const dragging = useRef(false);
  useEffect(() => {
    document.getElementById(target)?.style.setProperty('--sim-share', `${share}%`);
    try {
      localStorage.setItem(KEY, String(share));
    } catch {
      /* storage blocked: the split lives for this session */
    }
  }, [share, target]);
  const clamp = (v: number) => Math.round(Math.max(MIN, Math.min(MAX, v)));
  const onMove = (e: PointerEvent<HTMLDivElement>) => {
    if (!dragging.current) return;
    const box = document.getElementById(target)?.getBoundingClientRect();
    if (box && box.height > 0) setShare(clamp(((e.clientY - box.top) / box.height) * 100));
  };
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const next = e.key === 'ArrowUp' ? share - 5 : e.key === 'ArrowDown' ? share + 5 : e.key === 'Home' ? MIN : e.key === 'End' ? MAX : null;
    if (next === null) return;
    e.preventDefault();
    setShare(clamp(next));
  };
  return (
    <div
      className="splitter"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the simulation and the analysis panes"
      aria-valuemin={MIN}
      aria-valuemax={MAX}
      aria-valuenow={share}
      tabIndex={0}
      data-testid="splitter"
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
