import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIST, run } from '../../helpers.js';

const PROGRAM = path.join(DIST, 'test', 'unit', 'mpid', 'trace-alloc-program.js');

async function allocatedUnderEngine(debug: string): Promise<{ messages: number; bytes: number; where: string[] }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DEBUG: debug, DEBUG_COLORS: 'no' };
  for (const k of ['PMI_FD', 'PMI_PORT', 'PMI_ID', 'PMI_RANK', 'PMI_SIZE', 'TSMPI_JOBID']) delete env[k];
  const r = await run(process.execPath, [PROGRAM], 50_000, { env });
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  const line = r.stdout.trim().split('\n').at(-1)!;
  return JSON.parse(line) as { messages: number; bytes: number; where: string[] };
}

describe('tracing of the message path', () => {
  it('allocates nothing in mpid matching and protocol choice when tracing is off', { timeout: 60_000 }, async () => {
    const off = await allocatedUnderEngine('');
    // Sampling sees every 64 bytes on average. The smallest object V8 makes for a message (a
    // heap number) is 16 bytes, so anything built per message shows as >= 16 bytes a message;
    // what remains below 4 is the sparse noise of V8 itself (feedback and code for the flag's getter).
    assert.ok(off.bytes < off.messages * 4, `${off.bytes} bytes allocated by tracing over ${off.messages} messages with ` +
      `tracing off: ${off.where.join('; ')}`);
  });

  it('does allocate there when tsmpi:match and tsmpi:protocol are on (the measurement can see it)', { timeout: 60_000 }, async () => {
    const on = await allocatedUnderEngine('tsmpi:match,tsmpi:protocol,-tsmpi:pmi*');
    assert.ok(on.bytes > 1_000_000, `only ${on.bytes} bytes seen with tracing on`);
  });
});
