/** Placeholder: the page map is drawn here once its module lands. */
import { memo } from 'react';
import { useApp } from '../../store';

export const PageMap = memo(function PageMap() {
  const view = useApp((s) => s.sim?.pageMap ?? null);
  if (!view) return null;
  return <div data-testid="page-map" />;
});
