/**
 * The page map: every page of host memory as one small cell, coloured by
 * where the page is (rx ring, program, XDP tx ring, page cache, stack,
 * free, …), with a legend of live counts. A page that moved since the last
 * snapshot is drawn bright and fades back over a few snapshots, so pages
 * are seen flowing ring → program → tx ring → cache → ring. After a single
 * step (no further snapshots) the pages that step moved stay lit.
 *
 * Cheap at 60 snapshots a second: one canvas whose pixels are rewritten
 * only for the cells that changed (see GridPainter), and nothing drawn
 * while the section is closed or scrolled out of view.
 */
import { memo, useEffect, useRef, useState, type MouseEvent, type RefObject } from 'react';
import type { PageMapView } from '../../engine';
import { useApp, type Theme } from '../../store';
import { pageLocColors } from './palette';

/** Exact counts with thousands separators; one formatter, since toLocaleString builds one per call (slow at 60 Hz). */
const fmtInt = new Intl.NumberFormat('en-US').format;

/** Snapshots a moved page stays lit for (it dims one step per snapshot). */
const HEAT_MAX = 3;
/** Opacity by heat: resting pages are dimmed so moving ones stand out. */
const ALPHA = [0.45, 0.65, 0.85, 1];
/** Tallest the grid may grow, CSS px; cells shrink to fit before it does. */
const MAX_HEIGHT = 150;

interface Layout {
  cols: number;
  rows: number;
  cell: number;
  width: number;
  height: number;
}

/** Columns in multiples of 8 so an order-3 block (8 pages) never wraps a row. */
function layoutFor(pages: number, width: number): Layout {
  let cell = 6;
  for (; cell > 2; cell--) {
    const cols = Math.max(8, Math.floor(width / cell / 8) * 8);
    if (Math.ceil(pages / cols) * cell <= MAX_HEIGHT) break;
  }
  const cols = Math.max(8, Math.min(Math.floor(width / cell / 8) * 8, Math.ceil(pages / 8) * 8));
  const rows = Math.ceil(pages / cols);
  return { cols, rows, cell, width: cols * cell, height: rows * cell };
}

/** Light the pages whose location changed since `prev`; dim the rest one step. */
function updateHeat(heat: Uint8Array, prev: Uint8Array | null, pages: Uint8Array): void {
  for (let p = 0; p < pages.length; p++) {
    if (prev && prev[p] !== pages[p]) heat[p] = HEAT_MAX;
    else if (heat[p]! > 0) heat[p]!--;
  }
}

/** '#rrggbb' at opacity `a` as one ImageData pixel (Uint32, the platform's byte order). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
function pixel(hex: string, a: number): number {
  const v = parseInt(hex.slice(1, 7), 16) || 0;
  const r = v >> 16, g = (v >> 8) & 255, b = v & 255, al = Math.round(a * 255);
  return (LITTLE_ENDIAN ? (al << 24) | (b << 16) | (g << 8) | r : (r << 24) | (g << 16) | (b << 8) | al) >>> 0;
}

const NOT_DRAWN = 255;

/**
 * Paints the grid into one ImageData and repaints only the cells whose
 * style (location, brightness) changed since the last paint: most pages sit
 * still between snapshots, and per-cell canvas paths cost far more than
 * writing a few pixels (4096 Path2D.rect calls a frame were the page map's
 * main cost). The canvas is in device pixels; gaps stay transparent.
 */
class GridPainter {
  private img: ImageData | null = null;
  private px = new Uint32Array(0);
  /** Style drawn per page (NOT_DRAWN: paint it next time). */
  private drawn = new Uint8Array(0);
  private styles: number[] = [];
  private key = '';

  paint(c: HTMLCanvasElement, l: Layout, pages: Uint8Array, heat: Uint8Array, colors: string[]): void {
    const dpr = globalThis.devicePixelRatio || 1;
    const cell = Math.max(1, Math.round(l.cell * dpr));
    // One gap pixel between cells once they are big enough to afford it.
    const side = cell > 3 ? cell - 1 : cell;
    const w = l.cols * cell, h = l.rows * cell;
    const key = `${w}x${h}:${cell}:${colors.join()}`;
    if (key !== this.key || !this.img || this.drawn.length !== pages.length) {
      this.key = key;
      if (c.width !== w || c.height !== h) {
        c.width = w;
        c.height = h;
      }
      this.img = new ImageData(w, h);
      this.px = new Uint32Array(this.img.data.buffer);
      this.drawn = new Uint8Array(pages.length).fill(NOT_DRAWN);
      this.styles = [];
      for (const col of colors) for (const a of ALPHA) this.styles.push(pixel(col, a));
    }
    const ctx = c.getContext('2d');
    if (!ctx) return;
    const { px, drawn, styles } = this;
    let top = h, bottom = -1;
    for (let p = 0; p < pages.length; p++) {
      const st = pages[p]! * (HEAT_MAX + 1) + heat[p]!;
      if (drawn[p] === st) continue;
      drawn[p] = st;
      const x0 = (p % l.cols) * cell, y0 = Math.floor(p / l.cols) * cell;
      const v = styles[st] ?? 0;
      for (let y = y0; y < y0 + side; y++) px.fill(v, y * w + x0, y * w + x0 + side);
      if (y0 < top) top = y0;
      if (y0 > bottom) bottom = y0;
    }
    if (bottom >= 0) ctx.putImageData(this.img!, 0, 0, 0, top, w, bottom - top + cell);
  }
}

/**
 * Whether the element is on screen (an element scrolled out of the
 * simulation view is not redrawn). Unknown until the observer's first
 * report, one frame after mounting: the grid below the fold is then never
 * painted at all while the simulation first appears (a first paint of 4096
 * cells, in code not yet optimised, cost ~60 ms of that frame).
 */
function useOnScreen(ref: RefObject<Element | null>): boolean {
  const [visible, setVisible] = useState(typeof IntersectionObserver !== 'function');
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver !== 'function') return;
    const io = new IntersectionObserver((entries) => setVisible(entries.some((e) => e.isIntersecting)));
    io.observe(el);
    return () => io.disconnect();
  }, [ref]);
  return visible;
}

/** The element's width; 0 until the first measurement (nothing is painted at a guessed width and then again at the real one). */
function useWidth(ref: RefObject<Element | null>): number {
  const [width, setWidth] = useState(typeof ResizeObserver === 'function' ? 0 : 480);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver !== 'function') return;
    const ro = new ResizeObserver((entries) => {
      const w = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (w > 0) setWidth(w);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return width;
}

const PageGrid = memo(function PageGrid({ view, colors, onHover }: { view: PageMapView; colors: string[]; onHover: (page: number | null) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const visible = useOnScreen(box);
  const width = useWidth(box);
  const n = view.pages.length;
  // Unmeasured: an empty canvas (a guessed width would lay out a grid hundreds of rows tall for a frame).
  const layout = width > 0 ? layoutFor(n, width) : { cols: 8, rows: 0, cell: 1, width: 0, height: 0 };
  const motion = useRef<{ prev: Uint8Array | null; heat: Uint8Array }>({ prev: null, heat: new Uint8Array(0) });
  const painter = useRef<GridPainter | null>(null);

  // Out of view, motion is not tracked; coming back starts afresh rather than flashing everything that moved meanwhile.
  useEffect(() => {
    if (!visible) motion.current.prev = null;
  }, [visible]);

  useEffect(() => {
    const c = canvas.current;
    if (!c || !visible || layout.width === 0) return;
    const m = motion.current;
    if (m.heat.length !== n) {
      m.heat = new Uint8Array(n);
      m.prev = null;
    }
    if (m.prev !== view.pages) updateHeat(m.heat, m.prev && m.prev.length === n ? m.prev : null, view.pages);
    m.prev = view.pages;
    painter.current ??= new GridPainter();
    painter.current.paint(c, layout, view.pages, m.heat, colors);
  }, [view, colors, visible, n, layout.width, layout.height, layout.cols, layout.cell]);

  const pageAt = (e: MouseEvent<HTMLCanvasElement>): number | null => {
    const r = e.currentTarget.getBoundingClientRect();
    const col = Math.floor((e.clientX - r.left) / layout.cell);
    const row = Math.floor((e.clientY - r.top) / layout.cell);
    const p = row * layout.cols + col;
    return col >= 0 && col < layout.cols && row >= 0 && p < n ? p : null;
  };

  return (
    <div className="page-map-grid" ref={box}>
      <canvas
        ref={canvas}
        data-testid="page-map-canvas"
        data-cols={layout.cols}
        data-cell={layout.cell}
        style={{ width: layout.width, height: layout.height }}
        role="img"
        aria-label={`${n} pages of host memory, ${layout.cols} to a row, coloured by location`}
        onMouseMove={(e) => onHover(pageAt(e))}
        onMouseLeave={() => onHover(null)}
      />
    </div>
  );
});

function Legend({ view, colors }: { view: PageMapView; colors: string[] }) {
  return (
    <ul className="legend page-map-legend" data-testid="page-map-legend">
      {view.locations.map((l, i) => (
        <li key={l.id} data-testid={`page-map-count-${l.id}`} data-count={l.count} className={l.count === 0 ? 'empty' : undefined}>
          <span className="swatch" style={{ background: colors[i] }} />
          {l.label} <span className="count">{fmtInt(l.count)}</span>
        </li>
      ))}
    </ul>
  );
}

function hoverText(view: PageMapView, page: number | null): string {
  if (page === null || page >= view.pages.length) return 'Hover a cell to see which page it is and where it is.';
  const where = view.locations[view.pages[page]!]?.label ?? 'unknown';
  return `page ${page} (pfn 0x${page.toString(16)}, ${fmtInt(page * 4)} KiB in): ${where}`;
}

export const PageMap = memo(function PageMap() {
  const view = useApp((s) => s.sim?.pageMap ?? null);
  const theme: Theme = useApp((s) => s.theme);
  const [open, setOpen] = useState(true);
  const [hover, setHover] = useState<number | null>(null);
  const ids = view?.locations.map((l) => l.id).join(',') ?? '';
  // Recomputed only when the set of locations or the theme changes, so the grid is not redrawn for a new array.
  const colors = useColors(ids, theme);
  if (!view) return null;
  return (
    <details className="page-map" data-testid="page-map" data-total={view.pages.length} open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Page map <small>{fmtInt(view.pages.length)} pages of host memory (4 KiB each), by where each page is</small>
      </summary>
      {open && (
        <>
          <Legend view={view} colors={colors} />
          <PageGrid view={view} colors={colors} onHover={setHover} />
          <output className="page-map-hover" data-testid="page-map-hover">{hoverText(view, hover)}</output>
        </>
      )}
    </details>
  );
});

function useColors(ids: string, theme: Theme): string[] {
  const cached = useRef<{ key: string; colors: string[] }>({ key: '', colors: [] });
  const key = `${theme}:${ids}`;
  if (cached.current.key !== key) cached.current = { key, colors: pageLocColors(ids ? ids.split(',') : [], theme) };
  return cached.current.colors;
}
