/** Placeholder: the redirect view is drawn here once its module lands. */
import { memo } from 'react';
import { useApp } from '../../store';

export const RedirectPanel = memo(function RedirectPanel() {
  const view = useApp((s) => s.sim?.redirect ?? null);
  if (!view) return null;
  return <div data-testid="redirect-panel" />;
});
