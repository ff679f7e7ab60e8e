/** XDP action counters (ABORTED … REDIRECT) and driver counters, with rates. */
import { memo } from 'react';
import type { CounterView } from '../../engine';
import { fmtCount, fmtRate } from './format';

export const Counters = memo(function Counters({ title, rows, testid }: { title: string; rows: CounterView[]; testid: string }) {
  return (
    <table className="counters" data-testid={testid}>
      <caption>{title}</caption>
      <tbody>
        {rows.map((c) => (
          <tr key={c.name} data-testid={`${testid}-${c.name}`}>
            <th>{c.name}</th>
            <td className="value" data-value={c.value}>{fmtCount(c.value)}</td>
            <td className="rate">{fmtRate(c.rate)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
});
