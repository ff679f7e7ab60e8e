/**
 * The stages that have landed, adapted to the engine's Toolchain. Edit this
 * file (and only this one) when a pipeline module lands or changes its API.
 */
import type { Toolchain } from './toolchain';
import { FALLBACK_EXAMPLE } from './fallbackExample';

export const landedToolchain: Toolchain = {
  examples: [FALLBACK_EXAMPLE],
};
