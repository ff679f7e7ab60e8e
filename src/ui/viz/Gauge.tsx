/** A fill gauge with its recent history as a sparkline beside the bar (the page cache), in two lines of text height. */
import { memo } from 'react';
import { line, scaleLinear } from 'd3';
import type { GaugeView } from '../../engine';

export const Gauge = memo(function Gauge({ g, width = 90 }: { g: GaugeView; width?: number }) {
  const h = 16;
  const frac = g.capacity > 0 ? Math.min(1, g.value / g.capacity) : 0;
  const x = scaleLinear().domain([0, Math.max(1, g.history.length - 1)]).range([0, width]);
  const y = scaleLinear().domain([0, Math.max(1, g.capacity)]).range([h, 2]);
  const path = line<number>().x((_, i) => x(i)).y((v) => y(v))(g.history) ?? '';
  return (
    <div className="gauge" data-testid={`gauge-${g.id}`}>
      <div className="gauge-head"><span className="gauge-label" title={g.label}>{g.label}</span><span data-testid={`gauge-${g.id}-value`}>{g.value} / {g.capacity}</span></div>
      <div className="gauge-row">
        <div className="gauge-bar"><div style={{ width: `${frac * 100}%` }} /></div>
        <svg width={width} height={h} className="sparkline" aria-hidden="true"><path d={path} /></svg>
      </div>
    </div>
  );
});
