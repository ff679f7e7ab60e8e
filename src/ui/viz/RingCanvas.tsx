/**
 * One descriptor ring drawn as a ring: a segment per slot coloured by its
 * state and owner, and the producer/consumer pointers as labelled hands.
 * Canvas, not SVG: a 4096-slot ring redrawn 60 times a second.
 */
import { useEffect, useRef } from 'react';
import { arc } from 'd3';
import type { RingView } from '../../engine';
import { slotColors } from './palette';

const POINTER_COLORS = ['#cf222e', '#1f883d', '#9a6700', '#0550ae'];

export function RingCanvas({ ring, size = 136 }: { ring: RingView; size?: number }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const c = ref.current;
    if (!c) return;
    const dpr = globalThis.devicePixelRatio || 1;
    if (c.width !== size * dpr) {
      c.width = size * dpr;
      c.height = size * dpr;
    }
    const ctx = c.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, size, size);
    ctx.translate(size / 2, size / 2);
    const outer = size / 2 - 18;
    const inner = outer - Math.max(10, size / 9);
    const n = Math.max(1, ring.size);
    const step = (2 * Math.PI) / n;
    const pad = n <= 256 ? step * 0.12 : 0;
    const colors = slotColors(ring.legend);
    const seg = arc<number>().innerRadius(inner).outerRadius(outer).context(ctx);
    for (let i = 0; i < n; i++) {
      ctx.beginPath();
      seg.startAngle(i * step + pad / 2).endAngle((i + 1) * step - pad / 2)(i);
      ctx.fillStyle = colors[ring.slots[i] ?? 0] ?? '#888';
      ctx.fill();
    }
    ring.pointers.forEach((p, k) => {
      const a = (p.index % n) * step + step / 2 - Math.PI / 2;
      const color = POINTER_COLORS[k % POINTER_COLORS.length];
      ctx.strokeStyle = color;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(Math.cos(a) * (inner - 16 - k * 6), Math.sin(a) * (inner - 16 - k * 6));
      ctx.lineTo(Math.cos(a) * (outer + 4), Math.sin(a) * (outer + 4));
      ctx.stroke();
    });
  }, [ring, size]);
  const label = `${ring.label}: ${ring.size} slots; ${ring.pointers.map((p) => `${p.name} at ${p.index}`).join(', ')}`;
  return (
    <figure className="ring" data-testid={`ring-${ring.id}`} data-kind={ring.kind}>
      <canvas ref={ref} style={{ width: size, height: size }} role="img" aria-label={label} />
      <figcaption>
        <strong>{ring.label}</strong>
        <span className="ring-pointers">
          {ring.pointers.map((p, k) => (
            <span key={p.name} data-testid={`ring-${ring.id}-${p.name}`} style={{ color: POINTER_COLORS[k % POINTER_COLORS.length] }}>
              {p.name} {p.index}
            </span>
          ))}
        </span>
      </figcaption>
    </figure>
  );
}
