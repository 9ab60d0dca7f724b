import type { LocalSegment } from '../../../src/sisci/index.js';

/**
 * Removes a local segment once the other node has disconnected from it: SCIRemoveSegment says
 * SCI_ERR_BUSY until then. Gives up (rethrows) after `seconds`.
 */
export async function removeWhenFree(seg: LocalSegment, seconds = 10): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    try {
      seg.remove();
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== 'SCI_ERR_BUSY' || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}
