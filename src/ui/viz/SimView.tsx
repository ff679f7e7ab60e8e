/**
 * The simulated machine: controls, rings and the page cache under them, action counters,
 * rate chart and CPU profile, all functions of the latest worker snapshot.
 * Each part selects only its own slice of the snapshot (the store shares
 * unchanged subtrees between snapshots), so a snapshot re-renders only
 * what changed rather than the whole view.
 */
import { memo } from 'react';
import { useApp } from '../../store';
import { SimControls } from '../controls/SimControls';
import { Settings } from '../controls/Settings';
import { RingCanvas } from './RingCanvas';
import { Legend } from './Legend';
import { Gauge } from './Gauge';
import { Counters } from './Counters';
import { LineChart } from './LineChart';
import { Profile } from './Profile';
import { RedirectPanel } from './RedirectPanel';
import { XskPanel, XskStrip } from './XskPanel';
import { PageMap } from './PageMap';
import { fmtCount, fmtTime } from './format';

const SimClock = memo(function SimClock() {
  const nowNs = useApp((s) => s.sim?.nowNs ?? 0);
  const events = useApp((s) => s.sim?.events ?? 0);
  const packets = useApp((s) => s.sim?.packets ?? 0);
  const napiPolls = useApp((s) => s.sim?.napiPolls ?? 0);
  const attached = useApp((s) => s.sim?.attached);
  return (
    // One line, so a long detach reason cannot push the machine down; the whole line is its title.
    <div className="sim-clock" data-testid="sim-clock" data-events={events} data-packets={packets} title={attached && !attached.ok ? `no XDP program: ${attached.reason}` : undefined}>
      t = {fmtTime(nowNs)} · {fmtCount(events)} events · {fmtCount(packets)} packets · {fmtCount(napiPolls)} NAPI polls ·{' '}
      {attached && <span data-testid="attached" className={attached.ok ? 'ok' : 'warn'}>{attached.ok ? `XDP: ${attached.name}` : `no XDP program: ${attached.reason}`}</span>}
    </div>
  );
});

const Rings = memo(function Rings() {
  const rings = useApp((s) => s.sim?.rings);
  const socket = useApp((s) => s.sim?.xsk != null);
  const gauges = useApp((s) => s.sim?.gauges);
  if (!rings) return null;
  return (
    <div className="rings">
      {/* With an AF_XDP socket its rings join the NIC's here, so the NIC's draw a little smaller. */}
      {rings.map((r) => <RingCanvas key={r.id} ring={r} size={socket ? 96 : 112} />)}
      {socket && <XskStrip />}
      {/* The buffers the rings draw from, under the rings (at 1280×720 the counters' column has no room left). */}
      {gauges?.map((g) => <Gauge key={g.id} g={g} />)}
      {socket ? (
        <details className="legend-fold">
          <summary>slot colours</summary>
          <Legend rings={rings} />
        </details>
      ) : <Legend rings={rings} />}
    </div>
  );
});

const SideCounters = memo(function SideCounters() {
  const actions = useApp((s) => s.sim?.actions);
  const counters = useApp((s) => s.sim?.counters);
  return (
    <div className="sim-side">
      {actions && <Counters title="XDP actions" rows={actions} testid="actions" />}
      {counters && <Counters title="Driver" rows={counters} testid="counters" />}
    </div>
  );
});

const SideCharts = memo(function SideCharts() {
  const series = useApp((s) => s.sim?.series);
  const profile = useApp((s) => s.sim?.profile);
  return (
    <div className="sim-side">
      {series && <LineChart series={series} />}
      {profile && <Profile rows={profile} />}
    </div>
  );
});

export function SimView() {
  const hasSim = useApp((s) => s.sim !== null);
  const message = useApp((s) => s.simMessage);
  return (
    <div className="sim" data-testid="sim">
      <SimControls />
      {message && <div className="sim-message" data-testid="sim-message">{message}</div>}
      {hasSim && (
        <div className="sim-body">
          <SimClock />
          <div className="sim-grid">
            <Rings />
            <SideCounters />
            <SideCharts />
          </div>
          {/* A socket's UMEM and rings first when there is one: with xdpsock they are what the learner came for. */}
          <XskPanel />
          <PageMap />
          <RedirectPanel />
          <Settings />
        </div>
      )}
    </div>
  );
}
