/** Placeholder: the xsk view is drawn here once its module lands. */
import { memo } from 'react';
import { useApp } from '../../store';

export const XskPanel = memo(function XskPanel() {
  const view = useApp((s) => s.sim?.xsk ?? null);
  if (!view) return null;
  return <div data-testid="xsk-panel" />;
});
