/** The slot-state legend shared by the rings on screen. */
import { memo } from 'react';
import type { RingView } from '../../engine';
import { slotColors } from './palette';

export const Legend = memo(function Legend({ rings }: { rings: RingView[] }) {
  const seen = new Map<string, { label: string; color: string; owner: string }>();
  for (const r of rings) {
    const colors = slotColors(r.legend);
    r.legend.forEach((l, i) => {
      if (!seen.has(l.label)) seen.set(l.label, { label: l.label, color: colors[i]!, owner: l.owner });
    });
  }
  return (
    <ul className="legend" aria-label="Slot states">
      {[...seen.values()].map((l) => (
        <li key={l.label}><span className="swatch" style={{ background: l.color }} />{l.label} <small>({l.owner === 'hw' ? 'NIC' : l.owner === 'sw' ? 'driver' : 'free'})</small></li>
      ))}
    </ul>
  );
});
