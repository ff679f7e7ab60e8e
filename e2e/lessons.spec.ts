/** Lessons: steps set the lab up and tick themselves off when what they describe really happens. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';
import { LessonsPanel } from './pages/LessonsPanel';

test('a lesson sets up the lab, ticks its steps off from live state, and saves progress', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  const lessons = new LessonsPanel(page);
  await lab.open('/');
  // Start from another program, so the first step's check is false until its set-up runs.
  await lab.examples.selectOption('xdp2');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog2');
  await lessons.open();

  // Lesson 1, step 1: "Set up" loads xdp1; the step is done only once DROP really passes 10,000.
  await lessons.choose('first-program');
  await expect(lessons.step(0)).toHaveAttribute('data-done', 'false');
  await lessons.setUp(0);
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog1');
  await lessons.expectDone(0);
  expect(await lab.sim.counter('actions', 'DROP')).toBeGreaterThanOrEqual(10_000);
  // The page-cache step ticks itself from the cache counters (pages reused, none allocated), as the lesson says.
  await lessons.expectDone(2);

  // Lesson 2: the broken program is rejected (the step ticks), then fixing it by hand ticks the next one.
  await lessons.choose('verifier');
  await lessons.setUp(0);
  await lessons.expectDone(0);
  await expect(lessons.step(1)).toHaveAttribute('data-done', 'false');
  const broken = await lab.source();
  expect(broken).toContain('(void)data_end;');
  await lab.setSource(broken.replace('(void)data_end; /* the check that should use it is missing */', 'if (data + sizeof(*eth) > data_end)\n\t\treturn XDP_DROP;'));
  await lessons.expectDone(1);
  await expect(page.getByTestId('lesson-complete')).toBeVisible();
  await lab.screenshot(testInfo, 'lessons');

  // Progress is saved as it is made.
  const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('xdp-lab:lessons') ?? 'null'));
  expect(saved).toEqual({ lesson: 'verifier', done: expect.arrayContaining(['first-program:0', 'first-program:2', 'verifier:0', 'verifier:1']) });
});

test('lesson progress is restored on load', async ({ page }) => {
  await page.addInitScript(() => {
    if (!sessionStorage.getItem('seeded')) {
      localStorage.setItem('xdp-lab:lessons', JSON.stringify({ lesson: 'xdp-tx', done: ['xdp-tx:0', 'first-program:1'] }));
      sessionStorage.setItem('seeded', '1');
    }
  });
  const lab = new LabPage(page);
  const lessons = new LessonsPanel(page);
  await lab.open('/');
  await lessons.open();
  await expect(page.getByTestId('lesson-xdp-tx')).toHaveAttribute('aria-current', 'true');
  await lessons.expectDone(0, 5_000);
  await lessons.choose('first-program');
  await lessons.expectDone(1, 5_000);
  // Starting over clears it.
  await page.getByRole('button', { name: 'Start over' }).click();
  await expect(lessons.step(1)).toHaveAttribute('data-done', 'false');
});
