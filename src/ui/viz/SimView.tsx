/** The simulated machine: rings, page cache, counters, charts and controls. */
import { useApp } from '../../store';
import { Unavailable } from '../panes/Unavailable';

export function SimView() {
  const caps = useApp((s) => s.capabilities);
  return (
    <div className="sim" data-testid="sim">
      {!caps?.sim && <Unavailable what="simulation" why="the driver simulator (src/sim) has not landed in this build" />}
    </div>
  );
}
