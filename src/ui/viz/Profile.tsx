/** Where the busy CPU's cycles go, perf-report style: self %, symbol. */
import { memo } from 'react';
import type { ProfileRow } from '../../engine';

export const Profile = memo(function Profile({ rows }: { rows: ProfileRow[] }) {
  return (
    <table className="profile" data-testid="profile">
      <caption>CPU profile (perf report)</caption>
      <thead><tr><th>Overhead</th><th>Symbol</th></tr></thead>
      <tbody>
        {rows.slice(0, 12).map((r) => (
          <tr key={r.symbol}>
            <td className="pct"><span className="pct-bar" style={{ width: `${Math.min(100, r.percent)}%` }} />{r.percent.toFixed(2)}%</td>
            <td className="sym">{r.symbol}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
});
