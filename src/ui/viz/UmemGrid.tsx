/**
 * The UMEM as a grid: one cell per chunk, in address order, coloured by
 * who holds it (fill ring, NIC, rx ring, …). Canvas, not one element per
 * chunk: the seed's UMEM has 4096 chunks and snapshots come 60 times a
 * second. The owner colours are CSS variables (--xsk-<owner>) so both
 * themes apply; they are re-read when the theme changes.
 */
import { memo, useEffect, useRef } from 'react';
import type { XskView } from '../../engine';
import { useApp } from '../../store';

/** Chunks per row and cell size: every chunk visible, the grid no wider than the rings. */
function gridShape(frames: number): { cols: number; cell: number } {
  if (frames <= 256) return { cols: 16, cell: 14 };
  if (frames <= 1024) return { cols: 32, cell: frames <= 512 ? 11 : 9 };
  return { cols: 64, cell: 5 };
}

export const UmemGrid = memo(function UmemGrid({ umem }: { umem: XskView['umem'] }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const theme = useApp((s) => s.theme);
  const { cols, cell } = gridShape(umem.frames);
  const rows = Math.ceil(umem.frames / cols);
  const gap = cell >= 9 ? 1 : 0;
  const width = cols * cell;
  const height = rows * cell;
  useEffect(() => {
    const c = ref.current;
    if (!c) return;
    const dpr = globalThis.devicePixelRatio || 1;
    if (c.width !== width * dpr || c.height !== height * dpr) {
      c.width = width * dpr;
      c.height = height * dpr;
    }
    const ctx = c.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    const css = getComputedStyle(c);
    const colors = umem.owners.map((o) => css.getPropertyValue(`--xsk-${o.id}`).trim() || '#888');
    // One fill style per owner: batch the cells by colour.
    for (let o = 0; o < colors.length; o++) {
      ctx.fillStyle = colors[o]!;
      for (let i = 0; i < umem.chunks.length; i++) {
        if (umem.chunks[i] !== o) continue;
        ctx.fillRect((i % cols) * cell, Math.floor(i / cols) * cell, cell - gap, cell - gap);
      }
    }
  }, [umem, cols, cell, gap, width, height, theme]);
  const describeAt = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const i = Math.floor((e.clientY - r.top) / cell) * cols + Math.floor((e.clientX - r.left) / cell);
    const owner = umem.owners[umem.chunks[i] ?? -1];
    e.currentTarget.title = owner ? `chunk ${i} at 0x${(i * umem.chunkSize).toString(16)}: ${owner.label}` : '';
  };
  return (
    <canvas
      ref={ref}
      className="umem-grid"
      data-testid="umem-grid"
      data-chunks={umem.frames}
      style={{ width, height }}
      role="img"
      aria-label={`UMEM: ${umem.frames} chunks of ${umem.chunkSize} bytes, coloured by owner`}
      onMouseMove={describeAt}
    />
  );
});
