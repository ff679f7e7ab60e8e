/**
 * The attached program's maps, as `bpftool map dump` shows them (hex key,
 * one value per CPU), refreshed while the pane is open, and an update form
 * that does what user space's bpf_map_update_elem does. Keys and values are
 * shown and typed as C values of the types the program declared ("17",
 * "0x11", "{ .rx_packets = 3, .rx_bytes = 180 }"); raw little-endian hex
 * works for every map.
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

/** An aggregate's zero value (its members named) shows what to type; a plain integer gets an example number. */
function example(template: string | undefined, number: string): string {
  return template?.startsWith('{') ? template : number;
}

export function MapsPane() {
  const [maps, setMaps] = useState<MapView[] | null>(null);
  const [reason, setReason] = useState<string | null>(null);
  const [form, setForm] = useState<{ index: number; key: string; value: string; keyFormat: 'c' | 'hex'; valueFormat: 'c' | 'hex' }>({ index: 0, key: '', value: '', keyFormat: 'c', valueFormat: 'c' });
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
    const m = maps?.[form.index];
    // A C value needs the type: maps without one take hex whatever the choice.
    const formats = { key: m?.keyType ? form.keyFormat : 'hex', value: m?.valueType ? form.valueFormat : 'hex' } as const;
    const r = await engine().call('mapUpdate', form.index, form.key, form.value, formats);
    if (r.ok) { setMaps(r.maps); setResult('updated'); } else setResult(r.reason);
  };

  if (reason) return <div className="pane-empty" data-testid="maps-unavailable">{reason}</div>;
  if (!maps) return <div className="pane-empty">loading…</div>;
  const sel = maps[form.index];
  const keyC = !!sel?.keyType && form.keyFormat === 'c';
  const valueC = !!sel?.valueType && form.valueFormat === 'c';
  if (maps.length === 0) return <div className="pane-empty" data-testid="maps-empty">No maps: the attached program declares none, or no program is attached.</div>;
  return (
    <div className="maps" data-testid="maps">
      {maps.map((m) => (
        <section key={m.index} data-testid={`map-${m.name}`}>
          <h3>{m.name} <small>{m.type} · key {m.keyType ? `${m.keyType}, ` : ''}{m.keySize} B · value {m.valueType ? `${m.valueType}, ` : ''}{m.valueSize} B · max_entries {m.maxEntries}</small></h3>
          <table className="map-entries">
            <thead><tr><th>key</th>{m.keyType && <th>key ({m.keyType})</th>}{m.percpu ? <th>value (per CPU)</th> : <th>value</th>}<th>{m.valueType ? `value (${m.valueType})` : 'as integer'}</th></tr></thead>
            <tbody>
              {m.bloom && (
                // A bloom filter keeps bits, not values: nothing to list, only how full it is.
                <tr data-testid={`map-${m.name}-bloom`}><td colSpan={3} className="muted">bloom filter: {m.bloom.setBits} of {m.bloom.nrBits} bits set, {m.bloom.nrHashFuncs} hash functions per value (update pushes a value; no key)</td></tr>
              )}
              {!m.bloom && m.entries.length === 0 && <tr><td colSpan={m.keyType ? 4 : 3} className="muted">(empty{m.type.includes('array') ? ': all zero' : ''})</td></tr>}
              {m.entries.map((e) => (
                <tr key={e.key} data-testid={`map-${m.name}-${e.key}`}>
                  <td>{e.key}</td>
                  {m.keyType && <td className="num" data-testid="map-key-c">{e.keyC}</td>}
                  <td>{e.value.join(' ')}</td>
                  {e.innerMap !== undefined
                    // A map-in-map's value is a map: named, not counted.
                    ? <td data-testid="map-inner-map">→ {e.innerMap}</td>
                    : e.valueC
                    ? <td className="num" data-testid="map-value-c">{e.valueC.join(m.valueTemplate?.startsWith('{') ? ' | ' : ' + ')}</td>
                    : <td className="num">{e.value.map(leNumber).join(' + ')}</td>}
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
        <label>key as
          <select data-testid="map-key-format" value={sel?.keyType ? form.keyFormat : 'hex'} disabled={!sel?.keyType} onChange={(e) => setForm({ ...form, keyFormat: e.target.value === 'hex' ? 'hex' : 'c' })}>
            {sel?.keyType && <option value="c">{sel.keyType}</option>}
            <option value="hex">hex bytes</option>
          </select>
          <input data-testid="map-key" value={form.key} onChange={(e) => setForm({ ...form, key: e.target.value })} placeholder={keyC ? example(sel.keyTemplate, 'e.g. 17 or 0x11') : '00'.repeat(sel?.keySize ?? 4)} aria-label="key" />
        </label>
        <label>value as
          <select data-testid="map-value-format" value={sel?.valueType ? form.valueFormat : 'hex'} disabled={!sel?.valueType} onChange={(e) => setForm({ ...form, valueFormat: e.target.value === 'hex' ? 'hex' : 'c' })}>
            {sel?.valueType && <option value="c">{sel.valueType}</option>}
            <option value="hex">hex bytes</option>
          </select>
          <input data-testid="map-value" value={form.value} onChange={(e) => setForm({ ...form, value: e.target.value })} placeholder={valueC ? example(sel.valueTemplate, 'e.g. 42') : '00'.repeat(sel?.valueSize ?? 8)} aria-label="value" />
        </label>
        <button type="submit" data-testid="map-update">Update</button>
        {result && <span role="status" data-testid="map-update-result">{result}</span>}
      </form>
    </div>
  );
}
