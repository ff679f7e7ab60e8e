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
    return pal[used[l.owner]++ % pal.length];
  });
}
