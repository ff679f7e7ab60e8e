/** bpf_printk output and engine notes, newest last. */
import { useApp } from '../../store';

export function ConsolePane() {
  const lines = useApp((s) => s.consoleLines);
  return (
    <pre className="console" data-testid="console" aria-live="polite">
      {lines.length ? lines.join('\n') : '(no output yet: bpf_printk lines appear here)'}
    </pre>
  );
}
