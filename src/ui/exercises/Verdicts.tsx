/** A grade's verdicts: one row per hidden test, failures with expected vs actual decoded and the differing bytes by field. */
import type { GradeResult, TestVerdict } from '../../lessons/exercises';

const b = (x: number | null) => (x === null ? '--' : x.toString(16).padStart(2, '0'));

function Row({ t }: { t: TestVerdict }) {
  return (
    <li className={t.pass ? 'ok' : 'bad'} data-testid="verdict" data-pass={t.pass}>
      <span aria-hidden>{t.pass ? '✓' : '✗'}</span> {t.message}
      {!t.pass && (t.expected?.decoded || t.actual?.decoded) && (
        <dl className="verdict-frames">
          {t.expected?.decoded && (<><dt>expected</dt><dd>{t.expected.decoded}</dd></>)}
          {t.actual?.decoded && (<><dt>actual</dt><dd>{t.actual.decoded}</dd></>)}
        </dl>
      )}
      {!t.pass && t.diff && t.diff.length > 0 && (
        <table className="verdict-diff" data-testid="verdict-diff">
          <thead><tr><th>offset</th><th>field</th><th>expected</th><th>actual</th></tr></thead>
          <tbody>
            {t.diff.slice(0, 12).map((d) => (
              <tr key={d.offset}><td>{d.offset}</td><td>{d.field}</td><td>{b(d.expected)}</td><td>{b(d.actual)}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}

export function Verdicts({ r }: { r: GradeResult }) {
  const passed = r.tests.filter((t) => t.pass).length;
  return (
    <div className="verdicts" data-testid="verdicts" data-pass={r.pass}>
      <p className={r.pass ? 'ok' : 'bad'} data-testid="grade-summary">
        {r.pass ? `All ${r.tests.length} tests pass.` : r.error ? `Not graded: ${r.error}` : `${passed} of ${r.tests.length} tests pass.`}
      </p>
      {r.explanation && (
        <p className="muted" data-testid="grade-explanation">Line {r.explanation.line}: {r.explanation.summary}</p>
      )}
      <ul>{r.tests.map((t, i) => <Row key={i} t={t} />)}</ul>
    </div>
  );
}
