/** Stepping one packet through its lifecycle and through its instructions. */
import { expect, test } from '@playwright/test';
import { LabPage } from './pages/LabPage';

test('a packet: its life in the driver, its bytes, and its program one instruction at a time', async ({ page }, testInfo) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.examples.selectOption('xdp2');
  await expect(page.getByTestId('attached')).toContainText('XDP: xdp_prog2');
  await expect.poll(() => lab.sim.counter('actions', 'TX')).toBeGreaterThan(10);
  await lab.tab('inspector').click();
  await page.getByTestId('inspect-latest').click();
  await expect(page.getByTestId('inspected-packet')).toContainText('XDP_TX');

  // Lifecycle: DMA/completion first, then the program, then the action.
  const kinds = await page.getByTestId('lifecycle-step').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
  expect(kinds[0]).toBe('nic_rx');
  expect(kinds.indexOf('xdp_run')).toBeGreaterThan(0);
  expect(kinds.indexOf('xdp_tx')).toBeGreaterThan(kinds.indexOf('xdp_run'));

  // Bytes: xdp2 swapped the MAC addresses, so the first 12 bytes differ.
  await expect(page.getByTestId('bytes-after').locator('.diff').first()).toBeVisible();

  // Instructions: step forward; the real registers, the verifier's view and the C line follow.
  const total = Number((await page.getByTestId('insn-step').textContent())!.split('/')[1]);
  expect(total).toBeGreaterThan(10);
  await expect(page.getByTestId('cur-insn')).toHaveText(/^0: /);
  await page.getByTestId('insn-next').click();
  await expect(page.getByTestId('insn-step')).toHaveText(`step 2 / ${total}`);
  await expect(page.getByTestId('cur-insn')).toHaveText(/^1: /);
  await expect(page.getByTestId('real-regs')).toContainText('r1');
  await expect(page.getByTestId('step-abstract')).toContainText('R1');
  await expect.poll(() => lab.linkedLine()).toBeGreaterThan(0);

  // Step on to the first packet read: the bytes it touched are outlined in the packet at this step.
  // (allTextContents does not wait: most instructions touch no memory and have no step-mem line.)
  for (let i = 0; i < 40 && !/of packet/.test((await page.getByTestId('step-mem').allTextContents()).join('')); i++) {
    await page.getByTestId('insn-next').click();
  }
  const access = (await page.getByTestId('step-mem').textContent())!;
  expect(access).toMatch(/reads (\d+) B of packet at offset (\d+)/);
  const size = Number(/reads (\d+) B/.exec(access)![1]);
  await expect(page.getByTestId('step-packet').locator('[data-touched]')).toHaveCount(size);
  // At the last instruction the stack holds what the program stored there (xdp2's map key).
  await page.getByLabel('Instruction step').focus();
  await page.keyboard.press('End');
  await expect(page.getByTestId('insn-step')).toHaveText(`step ${total} / ${total}`);
  await expect(page.getByTestId('step-stack').locator('tr').first()).toContainText('fp-');
  await lab.screenshot(testInfo, 'packet-inspector');
});
