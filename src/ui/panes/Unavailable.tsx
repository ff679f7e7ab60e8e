/** What a pane shows when the stage behind it has not landed: said plainly, never faked. */
export function Unavailable({ what, why }: { what: string; why: string }) {
  return (
    <div className="unavailable" data-testid="unavailable">
      <strong>{what}</strong> not available yet: {why}.
    </div>
  );
}
