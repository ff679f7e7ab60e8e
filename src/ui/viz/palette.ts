/**
 * Colours for slot states. Hardware-owned descriptors are drawn in violet
 * shades, software-owned in blue/green/orange, unowned in grey, so ownership
 * reads at a glance before the legend is needed.
 */
import type { SlotLegend } from '../../engine';

const HW = ['#8250df', '#a475f9', '#c297ff', '#6639ba'];
const SW = ['#0969da', '#1a7f37', '#bc4c00', '#bf3989', '#4493f8', '#2da44e'];
const NONE = ['#8c959f', '#d0d7de'];

export function slotColors(legend: readonly SlotLegend[]): string[] {
  const used = { hw: 0, sw: 0, none: 0 };
  return legend.map((l) => {
    const pal = l.owner === 'hw' ? HW : l.owner === 'sw' ? SW : NONE;
    return pal[used[l.owner]++ % pal.length]!;
  });
}

/**
 * Colours for page locations (the page map), per theme. They follow the
 * slot colours' meaning: violet while the NIC owns the page (posted on the
 * rx ring), warm while the CPU holds it (driver and program), blue on the
 * tx ring, green when recycled; free memory is a quiet tone near the
 * background so the pages in use stand out.
 */
const PAGE_LOC_LIGHT: Record<string, string> = {
  rx_ring: '#8250df', in_flight: '#bc4c00', tx_ring: '#0969da', page_cache: '#1a7f37',
  redirect: '#bf3989', stack: '#9a6700', frags: '#c297ff', free: '#d8dee4',
};
const PAGE_LOC_DARK: Record<string, string> = {
  rx_ring: '#a371f7', in_flight: '#f0883e', tx_ring: '#4493f8', page_cache: '#3fb950',
  redirect: '#db61a2', stack: '#d29922', frags: '#d2a8ff', free: '#30363d',
};

export function pageLocColors(ids: readonly string[], theme: 'light' | 'dark'): string[] {
  const pal = theme === 'dark' ? PAGE_LOC_DARK : PAGE_LOC_LIGHT;
  return ids.map((id, i) => pal[id] ?? SW[i % SW.length]!);
}
