/**
 * XDP_REDIRECT as the machine does it: each CPU's bulk queue in front of
 * the target (devmap: 16 frames, cpumap: 8) filling as the program
 * redirects and emptying at xdp_do_flush; the target's tx ring (what
 * ndo_xdp_xmit filled); how many frames each flush carried; the devmap
 * entry's program and when it runs; and the counters. A function of the
 * snapshot's RedirectView; SVG with a few dozen elements, cheap at 60 Hz.
 */
import { memo } from 'react';
import { useApp } from '../../store';
import type { BulkQueueView, RedirectView } from '../../engine';
import { RingCanvas } from './RingCanvas';
import { Legend } from './Legend';
import { Counters } from './Counters';
import { fmtCount } from './format';

const SLOT = 12;
const GAP = 2;

const BulkQueue = memo(function BulkQueue({ q }: { q: BulkQueueView }) {
  const width = q.size * (SLOT + GAP);
  return (
    <div className="bq" data-testid={`bulk-cpu-${q.cpu}`} data-n={q.n} data-size={q.size}>
      <span className="bq-label">CPU {q.cpu}</span>
      <svg width={width} height={SLOT} role="img" aria-label={`CPU ${q.cpu} bulk queue: ${q.n} of ${q.size} frames waiting`}>
        {Array.from({ length: q.size }, (_, i) => (
          <rect key={i} x={i * (SLOT + GAP)} y={0} width={SLOT} height={SLOT} rx={2} className={i < q.n ? 'bq-slot full' : 'bq-slot'}>
            {i < q.n && <title>packet #{q.packets[i]}</title>}
          </rect>
        ))}
      </svg>
      <span className="bq-count">{q.n}/{q.size}</span>
    </div>
  );
});

const FlushHistogram = memo(function FlushHistogram({ sizes }: { sizes: RedirectView['flushSizes'] }) {
  const barW = 12;
  const h = 60;
  const max = Math.max(1, ...sizes.map((s) => s.count));
  const flushes = sizes.reduce((a, s) => a + s.count, 0);
  const frames = sizes.reduce((a, s) => a + s.size * s.count, 0);
  return (
    <figure className="flush-hist" data-testid="flush-histogram" data-flushes={flushes} data-frames={frames}>
      <svg width={sizes.length * (barW + 2)} height={h + 12} role="img" aria-label={`frames per flush: ${sizes.map((s) => `${s.size}: ${s.count}`).join(', ')}`}>
        {sizes.map((s, i) => {
          const bh = (s.count / max) * h;
          return (
            <g key={s.size}>
              <rect x={i * (barW + 2)} y={h - bh} width={barW} height={bh} className="flush-bar"><title>{`${fmtCount(s.count)} flushes of ${s.size}`}</title></rect>
              {(s.size === 1 || s.size === sizes.length || s.size % 4 === 0) && <text x={i * (barW + 2) + barW / 2} y={h + 10} textAnchor="middle">{s.size}</text>}
            </g>
          );
        })}
      </svg>
      <figcaption>frames per flush ({fmtCount(flushes)} flushes)</figcaption>
    </figure>
  );
});

function EntryProgram({ v }: { v: RedirectView }) {
  if (v.kind !== 'devmap') return null;
  const p = v.entryProgram;
  return (
    <p className="entry-prog" data-testid="entry-program" data-runs-at={p?.runsAt ?? 'none'}>
      {p ? (
        <>devmap entry program <code>{p.name}</code> runs {p.runsAt === 'flush' ? 'at flush, over the whole bulk (bq_xmit_all, after the 2021 patch)' : 'at enqueue, frame by frame (dev_map_enqueue, before the 2021 patch)'}</>
      ) : (
        <>no program on the devmap entry</>
      )}
    </p>
  );
}

export const RedirectPanel = memo(function RedirectPanel() {
  const view = useApp((s) => s.sim?.redirect ?? null);
  if (!view) return null;
  return (
    <section className="redirect-panel" data-testid="redirect-panel" data-kind={view.kind}>
      <h3>XDP_REDIRECT → {view.kind} → <span data-testid="redirect-target">{view.target}</span></h3>
      <div className="redirect-body">
        <div className="redirect-bulk">
          <h4>bulk queues <small>(flushed by xdp_do_flush at the end of the NAPI poll, or when full)</small></h4>
          {view.bulk.map((q) => <BulkQueue key={q.cpu} q={q} />)}
          <EntryProgram v={view} />
        </div>
        {view.txRing && (
          <div className="redirect-ring">
            <RingCanvas ring={view.txRing} size={120} />
            <Legend rings={[view.txRing]} />
          </div>
        )}
        <div className="redirect-stats">
          <FlushHistogram sizes={view.flushSizes} />
          <Counters title="redirect" rows={view.counters} testid="redirect-counters" />
        </div>
      </div>
    </section>
  );
});
