/**
 * The simulated machine: controls, rings, page cache, action counters,
 * rate chart and CPU profile, all functions of the latest worker snapshot.
 */
import { useApp } from '../../store';
import { Unavailable } from '../panes/Unavailable';
import { SimControls } from '../controls/SimControls';
import { Settings } from '../controls/Settings';
import { RingCanvas } from './RingCanvas';
import { Legend } from './Legend';
import { Gauge } from './Gauge';
import { Counters } from './Counters';
import { LineChart } from './LineChart';
import { Profile } from './Profile';
import { fmtCount, fmtTime } from './format';

export function SimView() {
  const caps = useApp((s) => s.capabilities);
  const sim = useApp((s) => s.sim);
  const message = useApp((s) => s.simMessage);
  if (caps && !caps.sim) return <div className="sim" data-testid="sim"><Unavailable what="simulation" why="the driver simulator (src/sim) has not landed in this build" /></div>;
  return (
    <div className="sim" data-testid="sim">
      <SimControls />
      {message && <div className="sim-message" data-testid="sim-message">{message}</div>}
      {sim && (
        <div className="sim-body">
          <div className="sim-clock" data-testid="sim-clock" data-events={sim.events} data-packets={sim.packets}>
            t = {fmtTime(sim.nowNs)} · {fmtCount(sim.events)} events · {fmtCount(sim.packets)} packets · {fmtCount(sim.napiPolls)} NAPI polls ·{' '}
            <span data-testid="attached" className={sim.attached.ok ? 'ok' : 'warn'}>{sim.attached.ok ? `XDP: ${sim.attached.name}` : `no XDP program: ${sim.attached.reason}`}</span>
          </div>
          <div className="sim-grid">
            <div className="rings">
              {sim.rings.map((r) => <RingCanvas key={r.id} ring={r} />)}
              <Legend rings={sim.rings} />
            </div>
            <div className="sim-side">
              <Counters title="XDP actions" rows={sim.actions} testid="actions" />
              <Counters title="Driver" rows={sim.counters} testid="counters" />
              {sim.gauges.map((g) => <Gauge key={g.id} g={g} />)}
            </div>
            <div className="sim-side">
              <LineChart series={sim.series} />
              <Profile rows={sim.profile} />
            </div>
          </div>
          <Settings />
        </div>
      )}
    </div>
  );
}
