/**
 * One descriptor ring drawn as a ring: a segment per slot coloured by its
 * state and owner, and the producer/consumer pointers as labelled hands.
 * Canvas, not SVG: a 4096-slot ring redrawn 30 times a second. Slots are
 * drawn as butt-capped arc strokes batched by colour (one stroke per slot
 * state, not one fill per slot), and only when the ring changed.
 */
import { memo, useEffect, useRef, useState } from 'react';
import type { RingView } from '../../engine';
import { slotColors } from './palette';

// The hands on the canvas; the pointer names below take the same hues per theme from app.css (.ptr-N), readable on either background.
const POINTER_COLORS = ['#cf222e', '#1f883d', '#9a6700', '#0550ae'];

/**
 * `compact`: a small ring for the machine's summary row (the AF_XDP socket's
 * four rings beside the NIC's): a thin margin for the hands, and a one-line
 * caption (`caption`) instead of the label and the pointer values.
 */
export const RingCanvas = memo(function RingCanvas({ ring, size = 136, compact, caption, testid }: { ring: RingView; size?: number; compact?: boolean; caption?: string; testid?: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  // A ring scrolled out of the simulation view is not redrawn until it is back in view.
  const [visible, setVisible] = useState(true);
  useEffect(() => {
    const c = ref.current;
    if (!c || typeof IntersectionObserver !== 'function') return;
    const io = new IntersectionObserver((entries) => setVisible(entries.some((e) => e.isIntersecting)));
    io.observe(c);
    return () => io.disconnect();
  }, []);
  useEffect(() => {
    const c = ref.current;
    if (!c || !visible) return;
    const dpr = globalThis.devicePixelRatio || 1;
    if (c.width !== size * dpr) {
      c.width = size * dpr;
      c.height = size * dpr;
    }
    const ctx = c.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, size, size);
    ctx.translate(size / 2, size / 2);
    const outer = size / 2 - (compact ? 4 : 18);
    const inner = outer - Math.max(compact ? 6 : 10, size / 9);
    const n = Math.max(1, ring.size);
    const step = (2 * Math.PI) / n;
    const pad = n <= 256 ? step * 0.12 : 0;
    const colors = slotColors(ring.legend);
    // Slot i spans [i·step, (i+1)·step) clockwise from 12 o'clock (canvas angle 0 is 3 o'clock).
    const mid = (inner + outer) / 2;
    ctx.lineWidth = outer - inner;
    ctx.lineCap = 'butt';
    const byColor = new Map<string, number[]>();
    for (let i = 0; i < n; i++) {
      const c = colors[ring.slots[i] ?? 0] ?? '#888';
      let list = byColor.get(c);
      if (!list) byColor.set(c, (list = []));
      list.push(i);
    }
    for (const [color, slots] of byColor) {
      ctx.beginPath();
      for (const i of slots) {
        const a0 = i * step + pad / 2 - Math.PI / 2;
        const a1 = (i + 1) * step - pad / 2 - Math.PI / 2;
        ctx.moveTo(Math.cos(a0) * mid, Math.sin(a0) * mid);
        ctx.arc(0, 0, mid, a0, a1);
      }
      ctx.strokeStyle = color;
      ctx.stroke();
    }
    ring.pointers.forEach((p, k) => {
      const a = (p.index % n) * step + step / 2 - Math.PI / 2;
      const color = POINTER_COLORS[k % POINTER_COLORS.length]!;
      ctx.strokeStyle = color;
      ctx.lineWidth = 2;
      ctx.beginPath();
      const from = compact ? Math.max(2, inner - 4 - k * 3) : inner - 16 - k * 6;
      ctx.moveTo(Math.cos(a) * from, Math.sin(a) * from);
      ctx.lineTo(Math.cos(a) * (outer + (compact ? 2 : 4)), Math.sin(a) * (outer + (compact ? 2 : 4)));
      ctx.stroke();
    });
  }, [ring, size, visible, compact]);
  const label = `${ring.label}: ${ring.size} slots; ${ring.pointers.map((p) => `${p.name} at ${p.index}`).join(', ')}`;
  return (
    <figure className={compact ? 'ring ring-compact' : 'ring'} data-testid={testid ?? `ring-${ring.id}`} data-kind={ring.kind}>
      <canvas ref={ref} style={{ width: size, height: size }} role="img" aria-label={label} />
      {compact ? <figcaption>{caption ?? ring.label}</figcaption> : <figcaption>
        <strong>{ring.label}</strong>
        <span className="ring-pointers">
          {ring.pointers.map((p, k) => (
            <span key={p.name} data-testid={`ring-${ring.id}-${p.name}`} className={`ptr-${k % POINTER_COLORS.length}`}>
              {p.name} {p.index}
            </span>
          ))}
        </span>
      </figcaption>}
    </figure>
  );
});
