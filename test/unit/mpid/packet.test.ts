// mpid's packet header (src/mpid/hdr/packet.ts), the opaque header of the device envelope:
// six words, messages and control packets written by their own functions, read back field by
// field, with the word shared by a message's context id and a control packet's receive handle.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { HEADER_WORDS } from '../../../src/mpid/device.js';
import {
  FLAG_SYNC, HDR_WORDS, MESSAGE_BYTES_MAX, PKT_CANCEL_OK, PKT_CTS, PKT_EAGER, PKT_RTS, W_CTX, W_LEN, W_RREQ, W_SRC,
  W_SREQ, W_TAG, describePacket, packetFlags, packetLength, packetType, writeControlHeader, writeMessageHeader,
} from '../../../src/mpid/hdr/packet.js';

describe('packet header', () => {
  it('fills exactly the envelope\'s opaque header', () => assert.equal(HDR_WORDS, HEADER_WORDS));

  it('round-trips a message header at an offset, negative and large values included', () => {
    const words = new Int32Array(3 + HDR_WORDS).fill(-7);
    writeMessageHeader(words.subarray(3), PKT_EAGER, FLAG_SYNC, 0x7ffffff0, 3, -1, 2 ** 31 - 1, 123456);
    assert.equal(packetType(words, 3), PKT_EAGER);
    assert.equal(packetFlags(words, 3), FLAG_SYNC);
    assert.deepEqual([words[3 + W_CTX], words[3 + W_SRC], words[3 + W_TAG], words[3 + W_LEN], words[3 + W_SREQ]],
      [0x7ffffff0, 3, -1, 2 ** 31 - 1, 123456]);
    assert.deepEqual(Array.from(words.subarray(0, 3)), [-7, -7, -7], 'nothing written before the header');
    assert.equal(describePacket(words, 3), `EAGER+SYNC ctx=${0x7ffffff0} src=3 tag=-1 len=${2 ** 31 - 1} sreq=123456`);
  });

  it('carries 48-bit lengths: across 2^31 and 2^32, up to MESSAGE_BYTES_MAX, type and flags intact', () => {
    const hdr = new Int32Array(HDR_WORDS);
    const lengths = [0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 16, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 7, 5 * 2 ** 32 + 123456789,
      2 ** 47, MESSAGE_BYTES_MAX];
    for (const len of lengths) {
      for (const [type, flags] of [[PKT_EAGER, FLAG_SYNC], [PKT_RTS, 0]] as const) {
        writeMessageHeader(hdr, type, flags, 5, 1, 2, len, 9);
        assert.equal(packetLength(hdr, 0), len, `length ${len}`);
        assert.equal(packetType(hdr, 0), type, `type with length ${len}`);
        assert.equal(packetFlags(hdr, 0), flags, `flags with length ${len}`);
        assert.deepEqual([hdr[W_CTX], hdr[W_SRC], hdr[W_TAG], hdr[W_SREQ]], [5, 1, 2, 9]);
      }
    }
    writeMessageHeader(hdr, PKT_RTS, 0, 8, 0, 0, 2 ** 31 + 16, 6);
    assert.equal(describePacket(hdr), `RTS ctx=8 src=0 tag=0 len=${2 ** 31 + 16} sreq=6`);
  });

  it('a control packet carries both request handles and clears the matching words', () => {
    const hdr = new Int32Array(HDR_WORDS).fill(99);
    writeControlHeader(hdr, PKT_CTS, 41, 42);
    assert.equal(packetType(hdr, 0), PKT_CTS);
    assert.equal(packetFlags(hdr, 0), 0);
    assert.equal(hdr[W_SREQ], 41);
    assert.equal(hdr[W_RREQ], 42);
    assert.deepEqual([hdr[W_SRC], hdr[W_TAG], hdr[W_LEN]], [0, 0, 0]);
    writeControlHeader(hdr, PKT_CANCEL_OK, 5, 1);
    assert.equal(describePacket(hdr), 'CANCEL_OK sreq=5 rreq=1');
    writeMessageHeader(hdr, PKT_RTS, 0, 8, 0, 0, 1 << 20, 6);
    assert.equal(describePacket(hdr), `RTS ctx=8 src=0 tag=0 len=${1 << 20} sreq=6`);
  });
});
