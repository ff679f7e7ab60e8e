/**
 * The attached program's maps, as `bpftool map dump` shows them (hex key,
 * one value per CPU), refreshed while the pane is open, and an update form
 * that does what user space's bpf_map_update_elem does.
 */
import { useEffect, useState } from 'react';
import { engine } from '../controller';
import type { MapView } from '../../engine/simTypes';

const REFRESH_MS = 500;

/** Little-endian integer value of a hex string, for counters (≤ 8 bytes). */
function leNumber(hex: string): string {
  if (hex.length > 16) return '';
  let v = 0n;
  for (let i = hex.length - 2; i >= 0; i -= 2) v = (v << 8n) | BigInt(parseInt(hex.slice(i, i + 2), 16));
  return v.toString();
}

export function MapsPane() {
  const [maps, setMaps] = useState<MapView[] | null>(null);
  const [reason, setReason] = useState<string | null>(null);
  const [form, setForm] = useState({ index: 0, key: '', value: '' });
  const [result, setResult] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    const load = async () => {
      try {
        const r = await engine().call('mapsRead');
        if (!live) return;
        if (r.ok) { setMaps(r.maps); setReason(null); } else setReason(r.reason);
      } catch (e) {
        if (live) setReason((e as Error).message);
      }
    };
    void load();
    const t = setInterval(load, REFRESH_MS);
    return () => { live = false; clearInterval(t); };
  }, []);

  const update = async () => {
    const r = await engine().call('mapUpdate', form.index, form.key, form.value);
    if (r.ok) { setMaps(r.maps); setResult('updated'); } else setResult(r.reason);
  };

  if (reason) return <div className="pane-empty" data-testid="maps-unavailable">{reason}</div>;
  if (!maps) return <div className="pane-empty">loading…</div>;
  if (maps.length === 0) return <div className="pane-empty" data-testid="maps-empty">No maps: the attached program declares none, or no program is attached.</div>;
  return (
    <div className="maps" data-testid="maps">
      {maps.map((m) => (
        <section key={m.index} data-testid={`map-${m.name}`}>
          <h3>{m.name} <small>{m.type} · key {m.keySize} B · value {m.valueSize} B · max_entries {m.maxEntries}</small></h3>
          <table className="map-entries">
            <thead><tr><th>key</th>{m.percpu ? <th>value (per CPU)</th> : <th>value</th>}<th>as integer</th></tr></thead>
            <tbody>
              {m.entries.length === 0 && <tr><td colSpan={3} className="muted">(empty{m.type.includes('array') ? ': all zero' : ''})</td></tr>}
              {m.entries.map((e) => (
                <tr key={e.key} data-testid={`map-${m.name}-${e.key}`}>
                  <td>{e.key}</td>
                  <td>{e.value.join(' ')}</td>
                  <td className="num">{e.value.map(leNumber).join(' + ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
      <form className="map-update" onSubmit={(e) => { e.preventDefault(); void update(); }}>
        <label>map
          <select value={form.index} onChange={(e) => setForm({ ...form, index: Number(e.target.value) })}>
            {maps.map((m) => <option key={m.index} value={m.index}>{m.name}</option>)}
          </select>
        </label>
        <label>key (hex)<input data-testid="map-key" value={form.key} onChange={(e) => setForm({ ...form, key: e.target.value })} placeholder={'00'.repeat(maps[form.index]?.keySize ?? 4)} /></label>
        <label>value (hex)<input data-testid="map-value" value={form.value} onChange={(e) => setForm({ ...form, value: e.target.value })} placeholder={'00'.repeat(maps[form.index]?.valueSize ?? 8)} /></label>
        <button type="submit" data-testid="map-update">Update</button>
        {result && <span role="status" data-testid="map-update-result">{result}</span>}
      </form>
    </div>
  );
}
