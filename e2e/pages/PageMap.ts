/** Page object for the page map: host memory page by page, its legend and the hover readout. */
import { expect, type Locator, type Page } from '@playwright/test';

export class PageMap {
  readonly root: Locator;
  readonly canvas: Locator;
  readonly legend: Locator;
  readonly hover: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('page-map');
    this.canvas = page.getByTestId('page-map-canvas');
    this.legend = page.getByTestId('page-map-legend');
    this.hover = page.getByTestId('page-map-hover');
  }

  /** Open the section and scroll it into view (the grid is drawn only while it is on screen). */
  async show(): Promise<void> {
    await expect(this.root).toBeVisible({ timeout: 30_000 });
    if ((await this.root.getAttribute('open')) === null) await this.root.locator('summary').click();
    // Centred, so the sticky controls bar does not cover the section's heading.
    await this.root.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await expect(this.canvas).toBeVisible();
  }

  async total(): Promise<number> {
    return Number(await this.root.getAttribute('data-total'));
  }

  /** Pages per location id, as the legend shows them. */
  async counts(): Promise<Record<string, number>> {
    return this.legend.locator('li').evaluateAll((items) =>
      Object.fromEntries(items.map((li) => [(li as HTMLElement).dataset.testid!.replace('page-map-count-', ''), Number((li as HTMLElement).dataset.count)])),
    );
  }

  /** Move the mouse over page `pfn`'s cell. */
  async hoverPage(pfn: number): Promise<void> {
    const cols = Number(await this.canvas.getAttribute('data-cols'));
    const cell = Number(await this.canvas.getAttribute('data-cell'));
    await this.canvas.hover({ position: { x: (pfn % cols) * cell + cell / 2, y: Math.floor(pfn / cols) * cell + cell / 2 } });
  }

  /** How many distinct opaque colours the canvas shows (0: nothing drawn). */
  async distinctColours(): Promise<number> {
    return this.canvas.evaluate((c: HTMLCanvasElement) => {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set<number>();
      for (let i = 0; i < d.length; i += 4) if (d[i + 3]! > 0) seen.add((d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!);
      return seen.size;
    });
  }

  /** A fingerprint of the canvas pixels and how many are drawn at full brightness (pages that just moved). */
  async pixels(): Promise<{ hash: number; lit: number }> {
    return this.canvas.evaluate((c: HTMLCanvasElement) => {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let hash = 0, lit = 0;
      for (let i = 0; i < d.length; i += 4) {
        hash = (Math.imul(hash, 31) + (d[i]! ^ (d[i + 1]! << 8) ^ (d[i + 2]! << 16) ^ (d[i + 3]! << 24))) | 0;
        if (d[i + 3] === 255) lit++;
      }
      return { hash, lit };
    });
  }

  async screenshot(): Promise<Buffer> {
    return this.root.screenshot();
  }
}
