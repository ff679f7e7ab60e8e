/**
 * Packets per second, the program's drops (XDP_DROP + XDP_ABORTED) and the
 * frames lost around it (rx_missed + tx_dropped + stack_dropped, dashed) over
 * simulated time, each line named by its counters (d3 scales, SVG). The
 * axes are created once and updated in place (d3's axis joins its ticks),
 * and the chart re-renders only when the series changed.
 */
import { axisBottom, axisLeft, line, max, scaleLinear, select } from 'd3';
import { memo, useEffect, useRef } from 'react';
import type { SeriesPoint } from '../../engine';
import { fmtRate, fmtTime } from './format';

// The top margin holds the key, so it is never drawn over the lines.
const M = { l: 44, r: 6, t: 18, b: 18 };

/**
 * A tick formatter that leaves a label out when it would repeat the one
 * before it (a near-empty series after reset rounds every tick to "0 ns").
 */
function distinct(fmt: (v: number) => string): (d: unknown, i: number) => string {
  let prev = '';
  return (d, i) => {
    const s = fmt(Number(d));
    if (i > 0 && s === prev) return '';
    prev = s;
    return s;
  };
}

export const LineChart = memo(function LineChart({ series, width = 300, height = 120 }: { series: SeriesPoint[]; width?: number; height?: number }) {
  const xAxis = useRef<SVGGElement>(null);
  const yAxis = useRef<SVGGElement>(null);
  const t0 = series[0]?.t ?? 0;
  const t1 = series.at(-1)?.t ?? 1;
  const x = scaleLinear().domain([t0, Math.max(t1, t0 + 1)]).range([M.l, width - M.r]);
  const y = scaleLinear().domain([0, Math.max(1, max(series, (p) => Math.max(p.pps, p.xdpDropPps, p.lostPps)) ?? 1)]).nice().range([height - M.b, M.t]);
  const pps = line<SeriesPoint>().x((p) => x(p.t)).y((p) => y(p.pps))(series) ?? '';
  const drops = line<SeriesPoint>().x((p) => x(p.t)).y((p) => y(p.xdpDropPps))(series) ?? '';
  const lost = line<SeriesPoint>().x((p) => x(p.t)).y((p) => y(p.lostPps))(series) ?? '';
  useEffect(() => {
    if (xAxis.current) select(xAxis.current).call(axisBottom(x).ticks(Math.max(2, Math.floor(width / 90))).tickFormat(distinct((d) => fmtTime(d))));
    if (yAxis.current) select(yAxis.current).call(axisLeft(y).ticks(4).tickFormat(distinct((d) => fmtRate(d).replace('pps', ''))));
  });
  return (
    <svg className="chart" width={width} height={height} data-testid="pps-chart" role="img" aria-label="Packets per second, the program's drops and frames missed or lost, over time">
      <g className="axes">
        <g ref={xAxis} transform={`translate(0,${height - M.b})`} />
        <g ref={yAxis} transform={`translate(${M.l},0)`} />
      </g>
      <path d={pps} className="series-pps" />
      <path d={drops} className="series-drop" />
      <path d={lost} className="series-lost" />
      <text x={M.l + 4} y={12} className="chart-key pps">rx pps</text>
      <text x={M.l + 50} y={12} className="chart-key drop" data-testid="chart-key-drop"><title>XDP_DROP + XDP_ABORTED per second</title>XDP drop/s</text>
      <text x={M.l + 128} y={12} className="chart-key lost" data-testid="chart-key-lost"><title>rx_missed (no posted rx buffer: the NIC dropped the frame) + tx_dropped + stack_dropped per second</title>missed/s</text>
    </svg>
  );
});
