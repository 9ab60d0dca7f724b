// The UCX settings ch_ucx picks when the user has not: the user's own (in the job's environment
// or the process's) always win, and the tcp receive segment holds the largest eager message
// with its headers, so UCP hands it over in one piece instead of assembling it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { applyUcxEnvDefaults, rxSegmentBytes, UCX_ENV_DEFAULTS } from '../../../src/ch_ucx/config.js';

describe('ch_ucx UCX environment defaults', () => {
  it('fills in every default, with a receive segment past the eager limit', () => {
    const target: NodeJS.ProcessEnv = {};
    applyUcxEnvDefaults({}, 128 * 1024, target);
    for (const [name, value] of Object.entries(UCX_ENV_DEFAULTS)) assert.equal(target[name], value, name);
    assert.equal(target.UCX_TCP_RX_SEG_SIZE, String(128 * 1024 + 4096));
  });

  it('leaves alone what the job or the process set', () => {
    const target: NodeJS.ProcessEnv = { UCX_TCP_RX_SEG_SIZE: '128K' };
    applyUcxEnvDefaults({ UCX_TLS: 'tcp', UCX_TCP_KEEPCNT: '9' }, 128 * 1024, target);
    assert.equal(target.UCX_TCP_RX_SEG_SIZE, '128K');
    assert.equal(target.UCX_TLS, undefined, 'the job environment names UCX_TLS; the process must not get tsmpi\'s');
    assert.equal(target.UCX_TCP_KEEPCNT, undefined);
    assert.equal(target.UCX_TCP_KEEPIDLE, '2s');
  });

  it('keeps the segment between UCX\'s 64 KiB and 1 MiB plus headers', () => {
    assert.equal(rxSegmentBytes(0), 64 * 1024);
    assert.equal(rxSegmentBytes(1000), 64 * 1024);
    assert.equal(rxSegmentBytes(100_000), 104_096);
    assert.equal(rxSegmentBytes(16 << 20), (1 << 20) + 4096);
  });
});
