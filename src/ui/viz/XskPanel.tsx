/**
 * The AF_XDP socket: its UMEM chunk by chunk, the four rings laid out as the
 * cycle a frame's chunk travels, and the socket's counters.
 *
 *   fill ring ──▶ i40e rx descriptors ──▶ rx ring
 *       ▲                                    │  xdpsock (l2fwd: swap MACs)
 *   completion ring ◀── i40e tx ◀──────── tx ring
 *
 * Ring slots are coloured by whether an entry is produced and not yet
 * consumed; each ring's frame carries the colour its chunks have in the
 * UMEM grid, so a chunk can be followed from grid to ring. The socket mode
 * control is always shown, so AF_XDP can be switched on from here.
 */
import { memo, type ReactNode } from 'react';
import type { RingView, XskView } from '../../engine';
import { useApp } from '../../store';
import { XskSettings } from '../controls/XskSettings';
import { RingCanvas } from './RingCanvas';
import { Counters } from './Counters';
import { UmemGrid } from './UmemGrid';
import { fmtCount } from './format';

const MODE_LABEL: Record<XskView['mode'], string> = {
  zc: 'zero-copy: the NIC DMAs straight into UMEM chunks',
  copy: 'copy mode: native XDP on the driver’s pages, xsk_rcv copies each frame into a chunk',
  skb: 'SKB mode: generic XDP on an skb, xsk_generic_rcv copies each frame into a chunk',
};

/** What xdpsock does between the rings, per application. */
const APP_STEPS: Record<string, { rxToTx: string; cqToFill: string }> = {
  l2fwd: { rxToTx: 'xdpsock l2fwd: takes rx descriptors, swaps the MACs in the UMEM, puts them on the tx ring', cqToFill: 'xdpsock: recycles completed addresses to the fill ring' },
  rxdrop: { rxToTx: 'xdpsock rxdrop: takes rx descriptors and gives the chunks straight back to the fill ring', cqToFill: 'xdpsock rxdrop: nothing to complete' },
  txonly: { rxToTx: 'xdpsock txonly: writes frames from its free chunks to the tx ring', cqToFill: 'xdpsock txonly: completed chunks back to its free list' },
};

function count(umem: XskView['umem'], id: string): number {
  const o = umem.owners.findIndex((x) => x.id === id);
  let n = 0;
  for (const c of umem.chunks) if (c === o) n++;
  return n;
}

/** Entries produced and not yet consumed. */
function entries(r: RingView): number {
  let n = 0;
  for (const s of r.slots) if (s !== 0) n++;
  return n;
}

function RingBox({ ring, owner }: { ring: RingView; owner: string }) {
  return (
    <div className={`xsk-ring xsk-owner-${owner}`} data-testid={`xsk-ring-${ring.kind}`} data-entries={entries(ring)}>
      <RingCanvas ring={ring} size={132} />
      <span className="xsk-entries">{entries(ring)} of {ring.size} entries</span>
    </div>
  );
}

function Step({ arrow, children, testid }: { arrow: string; children: ReactNode; testid?: string }) {
  return (
    <div className="xsk-step" data-testid={testid}>
      <span className="xsk-arrow" aria-hidden>{arrow}</span>
      <span>{children}</span>
    </div>
  );
}

function NicBox({ owner, title, n, what }: { owner: string; title: string; n: number; what: string }) {
  return (
    <div className={`xsk-nic xsk-owner-${owner}`} data-testid={`xsk-${owner}`} data-count={n}>
      <strong>{title}</strong>
      <span>{n} chunk{n === 1 ? '' : 's'}</span>
      <small>{what}</small>
    </div>
  );
}

const XskCycle = memo(function XskCycle({ view }: { view: XskView }) {
  const [fill, rx, tx, comp] = view.rings;
  const app = APP_STEPS[view.app] ?? APP_STEPS.l2fwd!;
  const zc = view.mode === 'zc';
  if (!fill || !rx || !tx || !comp) return null;
  return (
    <div className="xsk-cycle" data-testid="xsk-cycle">
      <RingBox ring={fill} owner="fill" />
      <Step arrow="→">{zc ? 'i40e_alloc_rx_buffers_zc posts fill addresses on rx descriptors' : 'xsk_rcv takes a fill address per frame'}</Step>
      <NicBox owner="nic_rx" title="i40e rx descriptors" n={count(view.umem, 'nic_rx')} what={zc ? 'the NIC writes the frame into the chunk; XDP redirects it to the socket' : 'the driver’s own pages (no chunks); XDP redirects, the kernel copies'} />
      <Step arrow="→">xsk_rcv writes an rx descriptor {'{addr, len}'}</Step>
      <RingBox ring={rx} owner="rx" />
      <Step arrow="↑" testid="xsk-app-recycle">{app.cqToFill}</Step>
      <div className="xsk-app" data-testid="xsk-app">{MODE_LABEL[view.mode]}</div>
      <Step arrow="↓" testid="xsk-app-forward">{app.rxToTx}</Step>
      <RingBox ring={comp} owner="completion" />
      <Step arrow="←">{zc ? 'i40e_clean_xdp_tx_irq completes sent chunks' : 'the skb destructor (xsk_destruct_skb) completes the address'}</Step>
      <NicBox owner="nic_tx" title="i40e tx descriptors" n={count(view.umem, 'nic_tx')} what={zc ? 'the NIC reads the frame from the chunk' : 'an skb per frame, its data copied from the chunk'} />
      <Step arrow="←">{zc ? 'i40e_xmit_zc takes tx descriptors in the NAPI poll' : 'sendto() → xsk_generic_xmit takes tx descriptors'}</Step>
      <RingBox ring={tx} owner="tx" />
    </div>
  );
});

const SHORT: Record<string, string> = { fill: 'fill', xsk_rx: 'rx', xsk_tx: 'tx', completion: 'comp' };

/**
 * The socket's four rings in the machine's summary row, small, with their
 * entries and the socket's rx/tx totals: at 1280×720 the detailed panel
 * below is out of view, and these are the socket's side of the machine.
 */
export const XskStrip = memo(function XskStrip() {
  const view = useApp((s) => s.sim?.xsk ?? null);
  if (!view) return null;
  const c = (name: string) => view.counters.find((x) => x.name === name)?.value ?? 0;
  return (
    <div className="xsk-strip" data-testid="xsk-strip" aria-label="AF_XDP socket rings">
      <span className="xsk-strip-title">AF_XDP socket (queue 0)</span>
      <div className="xsk-strip-rings">
        {view.rings.map((r) => (
          <div key={r.id} className={`xsk-owner-${r.kind === 'xsk_rx' ? 'rx' : r.kind === 'xsk_tx' ? 'tx' : r.kind}`}>
            <RingCanvas ring={r} size={52} compact testid={`xsk-mini-${r.kind}`} caption={`${SHORT[r.kind] ?? r.kind} ${entries(r)}`} />
          </div>
        ))}
      </div>
      <span className="xsk-strip-totals" data-testid="xsk-strip-totals">
        socket rx {fmtCount(c('rx'))} · tx {fmtCount(c('tx'))} · rx_dropped {fmtCount(c('rx_dropped'))}
      </span>
    </div>
  );
});

const UmemLegend = memo(function UmemLegend({ umem }: { umem: XskView['umem'] }) {
  return (
    <ul className="legend xsk-legend" aria-label="UMEM chunk owners" data-testid="umem-legend">
      {umem.owners.map((o) => {
        const n = count(umem, o.id);
        return (
          <li key={o.id} data-testid={`umem-owner-${o.id}`} data-count={n}>
            <span className={`swatch xsk-owner-${o.id}`} />{o.label}: <strong>{n}</strong>
          </li>
        );
      })}
    </ul>
  );
});

export const XskPanel = memo(function XskPanel() {
  const view = useApp((s) => s.sim?.xsk ?? null);
  const packets = useApp((s) => s.sim?.packets ?? 0);
  const socketRx = view?.counters.find((c) => c.name === 'rx')?.value ?? 0;
  return (
    <section className="xsk" data-testid="xsk-section" aria-label="AF_XDP socket">
      <XskSettings />
      {view && (
        <div className="xsk-panel" data-testid="xsk-panel" data-mode={view.mode} data-app={view.app}>
          <h3>
            AF_XDP socket on queue 0 · xdpsock {view.app} · UMEM {view.umem.frames} × {view.umem.chunkSize} B
            {view.umem.unaligned ? ', unaligned chunks' : ''}, headroom {view.umem.headroom}
          </h3>
          {packets > 64 && socketRx === 0 && (
            <p className="sim-message" data-testid="xsk-hint">
              No frame has reached the socket: the program must redirect into an XSKMAP (bpf_redirect_map(&amp;xsks_map, ctx-&gt;rx_queue_index, 0)); see the xdpsock example.
            </p>
          )}
          <div className="xsk-body">
            <div className="xsk-umem">
              <UmemGrid umem={view.umem} />
              <UmemLegend umem={view.umem} />
            </div>
            <XskCycle view={view} />
            <Counters title="Socket (XDP_STATISTICS and ring totals)" rows={view.counters} testid="xsk-counters" />
          </div>
        </div>
      )}
    </section>
  );
});
