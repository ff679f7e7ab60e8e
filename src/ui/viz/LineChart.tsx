/** Packets per second and drops over simulated time (d3 scales, SVG). */
import { axisBottom, axisLeft, line, max, scaleLinear, select } from 'd3';
import { useEffect, useRef } from 'react';
import type { SeriesPoint } from '../../engine';
import { fmtRate, fmtTime } from './format';

export function LineChart({ series, width = 300, height = 120 }: { series: SeriesPoint[]; width?: number; height?: number }) {
  const axes = useRef<SVGGElement>(null);
  const m = { l: 44, r: 6, t: 6, b: 18 };
  const t0 = series[0]?.t ?? 0;
  const t1 = series.at(-1)?.t ?? 1;
  const x = scaleLinear().domain([t0, Math.max(t1, t0 + 1)]).range([m.l, width - m.r]);
  const y = scaleLinear().domain([0, Math.max(1, max(series, (p) => Math.max(p.pps, p.dropPps)) ?? 1)]).nice().range([height - m.b, m.t]);
  const pps = line<SeriesPoint>().x((p) => x(p.t)).y((p) => y(p.pps))(series) ?? '';
  const drops = line<SeriesPoint>().x((p) => x(p.t)).y((p) => y(p.dropPps))(series) ?? '';
  useEffect(() => {
    const g = select(axes.current);
    g.selectAll('*').remove();
    g.append('g').attr('transform', `translate(0,${height - m.b})`).call(axisBottom(x).ticks(4).tickFormat((d) => fmtTime(Number(d))));
    g.append('g').attr('transform', `translate(${m.l},0)`).call(axisLeft(y).ticks(4).tickFormat((d) => fmtRate(Number(d)).replace('pps', '')));
  });
  return (
    <svg className="chart" width={width} height={height} data-testid="pps-chart" role="img" aria-label="Packets per second and drops over time">
      <g ref={axes} className="axes" />
      <path d={pps} className="series-pps" />
      <path d={drops} className="series-drop" />
      <text x={m.l + 4} y={m.t + 10} className="chart-key pps">pps</text>
      <text x={m.l + 34} y={m.t + 10} className="chart-key drop">drop/s</text>
    </svg>
  );
}
