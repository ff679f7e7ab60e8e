/** One line saying how far the program got: compiled, verified, rejected, or where it stopped. */
import { useApp } from '../store';

export function BuildStatus() {
  const build = useApp((s) => s.build);
  const building = useApp((s) => s.building);
  let text = 'starting…';
  let cls = 'pending';
  if (build) {
    const { compile, verify } = build;
    if (compile.status !== 'ok') {
      text = compile.message;
      cls = 'error';
    } else if (verify.status === 'ok') {
      text = verify.accepted ? `${compile.insnCount} insns · verified` : `${compile.insnCount} insns · rejected by the verifier`;
      cls = verify.accepted ? 'ok' : 'error';
    } else {
      text = `${compile.insnCount} insns · ${verify.message}`;
      cls = 'error';
    }
  }
  return (
    <span className={`build-status ${cls}`} data-testid="build-status" aria-live="polite">
      {building ? '⟳ ' : ''}{text}
    </span>
  );
}
