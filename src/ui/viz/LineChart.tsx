/**
 * Packets per second, the program's drops (XDP_DROP + XDP_ABORTED) and the
 * frames lost around it (rx_missed + tx_dropped + stack_dropped, dashed) over
 * simulated time, each line named by its counters (d3 scales, SVG). The
 * axes are React elements drawn as d3's axisBottom/axisLeft draw them (a
 * domain line, 6 px ticks, labels 3 px beyond): d3's axis redid its
 * selection joins on every snapshot, the chart's main cost when the
 * simulation first appears. The chart re-renders only when the series
 * changed.
 */
import { line, max, scaleLinear } from 'd3';
import { memo } from 'react';
import type { SeriesPoint } from '../../engine';
import { fmtRate, fmtTime } from './format';

// The top margin holds the key, so it is never drawn over the lines.
const M = { l: 44, r: 6, t: 18, b: 18 };

/**
 * A tick formatter that leaves a label out when it would repeat the one
 * before it (a near-empty series after reset rounds every tick to "0 ns").
 */
function distinct(fmt: (v: number) => string): (d: number, i: number) => string {
  let prev = '';
  return (d, i) => {
    const s = fmt(d);
    if (i > 0 && s === prev) return '';
    prev = s;
    return s;
  };
}

const TICK = 6;
const PAD = 3;

/** One axis: the domain line from range start to end, and a tick and label at each value (as d3-axis lays them out). */
function Axis({ orient, scale, ticks, format, at }: { orient: 'bottom' | 'left'; scale: ReturnType<typeof scaleLinear<number>>; ticks: number; format: (d: number, i: number) => string; at: number }) {
  const [r0, r1] = scale.range() as [number, number];
  const values = scale.ticks(ticks);
  const bottom = orient === 'bottom';
  return (
    <g transform={bottom ? `translate(0,${at})` : `translate(${at},0)`} fill="none" fontSize={10} fontFamily="sans-serif" textAnchor={bottom ? 'middle' : 'end'}>
      <path className="domain" stroke="currentColor" d={bottom ? `M${r0 + 0.5},${TICK}V0.5H${r1 + 0.5}V${TICK}` : `M${-TICK},${r0 + 0.5}H0.5V${r1 + 0.5}H${-TICK}`} />
      {values.map((v, i) => {
        const p = scale(v) + 0.5;
        return (
          <g className="tick" key={v} transform={bottom ? `translate(${p},0)` : `translate(0,${p})`}>
            <line stroke="currentColor" {...(bottom ? { y2: TICK } : { x2: -TICK })} />
            <text fill="currentColor" {...(bottom ? { y: TICK + PAD, dy: '0.71em' } : { x: -(TICK + PAD), dy: '0.32em' })}>
              {format(v, i)}
            </text>
          </g>
        );
      })}
    </g>
  );
}

export const LineChart = memo(function LineChart({ series, width = 300, height = 120 }: { series: SeriesPoint[]; width?: number; height?: number }) {
  const t0 = series[0]?.t ?? 0;
  const t1 = series.at(-1)?.t ?? 1;
  const x = scaleLinear().domain([t0, Math.max(t1, t0 + 1)]).range([M.l, width - M.r]);
  const y = scaleLinear().domain([0, Math.max(1, max(series, (p) => Math.max(p.pps, p.xdpDropPps, p.lostPps)) ?? 1)]).nice().range([height - M.b, M.t]);
  const pps = line<SeriesPoint>().x((p) => x(p.t)).y((p) => y(p.pps))(series) ?? '';
  const drops = line<SeriesPoint>().x((p) => x(p.t)).y((p) => y(p.xdpDropPps))(series) ?? '';
  const lost = line<SeriesPoint>().x((p) => x(p.t)).y((p) => y(p.lostPps))(series) ?? '';
  return (
    <svg className="chart" width={width} height={height} data-testid="pps-chart" role="img" aria-label="Packets per second, the program's drops and frames missed or lost, over time">
      <g className="axes">
        <Axis orient="bottom" scale={x} ticks={Math.max(2, Math.floor(width / 90))} format={distinct(fmtTime)} at={height - M.b} />
        <Axis orient="left" scale={y} ticks={4} format={distinct((d) => fmtRate(d).replace('pps', ''))} at={M.l} />
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
