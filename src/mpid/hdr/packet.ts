import { HEADER_WORDS } from '../device.js';

/**
 * The point-to-point packet header: 6 little-endian 32-bit words (24 bytes), written by mpid
 * into a scratch Int32Array and carried by every device as the opaque header of its envelope
 * (device.ts): no device reads it, each frames it with words of its own (sequence numbers,
 * lengths). Six words, so that ch_shmem's two framing words and the header fill 32 bytes, as the
 * thesis's S_header did: a message of up to 32 bytes then stays within one cache line. A
 * seventh word for the length's high half would push that message into a second line; the
 * high bits ride in word 0 instead, which types and flags leave half empty.
 *
 *   word  name      meaning
 *   0     TYPE      bits 0-7 packet type (PKT_*), bits 8-15 flags (FLAG_*), bits 16-31 LEN_HI:
 *                   the message length's bits 32-47 (messages, else zero)
 *   1     CTX       messages (EAGER, RTS): context id of the communicator (matching)
 *         RREQ      control packets: the receiver's request handle (CTS), or the answer (CANCEL_OK)
 *   2     SRC       sender's rank in that communicator (matching)
 *   3     TAG       message tag (matching)
 *   4     LEN       message length in bytes, bits 0-31 (the whole message, not this packet);
 *                   read it with packetLength, never directly: the length is 48 bits, up to
 *                   MESSAGE_BYTES_MAX (256 TiB, more than any buffer a process can hold)
 *   5     SREQ      sender's request handle: named in CTS, FIN, ACK and cancel packets
 *
 * Packet types and who sends them:
 *   PKT_EAGER     sender → receiver  message data travels with the packet (HINT_MAY_BUFFER)
 *   PKT_RTS       sender → receiver  rendezvous request-to-send; payload: the device's source
 *                                    descriptor (HINT_NO_BUFFER)
 *   PKT_CTS       receiver → sender  clear-to-send for SREQ, the receive is RREQ; payload: the
 *                                    device's grant, if it attaches one
 *   PKT_FIN       either → either    rendezvous transfer of SREQ done
 *   PKT_ACK       receiver → sender  a synchronous-mode send SREQ was matched
 *   PKT_CANCEL    sender → receiver  try to withdraw SREQ (still unexpected there?)
 *   PKT_CANCEL_OK receiver → sender  RREQ = 1 when SREQ was withdrawn, 0 when already matched
 */
export const HDR_WORDS = HEADER_WORDS;
export const HDR_BYTES = HDR_WORDS * 4;

export const W_TYPE = 0;
export const W_CTX = 1;
export const W_RREQ = 1;
export const W_SRC = 2;
export const W_TAG = 3;
export const W_LEN = 4;
export const W_SREQ = 5;

export const PKT_EAGER = 1;
export const PKT_RTS = 2;
export const PKT_CTS = 3;
export const PKT_FIN = 4;
export const PKT_ACK = 5;
export const PKT_CANCEL = 6;
export const PKT_CANCEL_OK = 7;
export const PKT_TYPE_COUNT = 8;

/** Synchronous mode: the receiver sends PKT_ACK when the message is matched. */
export const FLAG_SYNC = 1 << 8;

const TYPE_MASK = 0xff;
const FLAGS_MASK = 0xff00;
const LEN_HI_SHIFT = 16;
const TWO_32 = 0x100000000;

/** Longest message the header can carry: 48 bits of length (word LEN and word 0's LEN_HI). */
export const MESSAGE_BYTES_MAX = 2 ** 48 - 1;

export function packetType(hdr: Int32Array, at: number): number {
  return hdr[at + W_TYPE]! & TYPE_MASK;
}

export function packetFlags(hdr: Int32Array, at: number): number {
  return hdr[at + W_TYPE]! & FLAGS_MASK;
}

/** The header of a message (EAGER, RTS): its matching envelope and the sender's request. */
export function writeMessageHeader(hdr: Int32Array, type: number, flags: number, ctx: number, src: number,
                                   tag: number, len: number, sreq: number): void {
  // Below 2^31 (nearly every message) the length is one word and the division is skipped.
  if (len < 0x80000000) {
    hdr[W_TYPE] = type | flags;
    hdr[W_LEN] = len;
  } else {
    const high = Math.floor(len / TWO_32);
    hdr[W_TYPE] = type | flags | (high << LEN_HI_SHIFT);
    hdr[W_LEN] = len - high * TWO_32;
  }
  hdr[W_CTX] = ctx;
  hdr[W_SRC] = src;
  hdr[W_TAG] = tag;
  hdr[W_SREQ] = sreq;
}

/** The message length of an EAGER or RTS header: 48 bits from LEN and word 0's LEN_HI. */
export function packetLength(hdr: Int32Array, at: number): number {
  return (hdr[at + W_TYPE]! >>> LEN_HI_SHIFT) * TWO_32 + (hdr[at + W_LEN]! >>> 0);
}

/** The header of a control packet (CTS, FIN, ACK, CANCEL, CANCEL_OK): the two request handles. */
export function writeControlHeader(hdr: Int32Array, type: number, sreq: number, rreq: number): void {
  hdr[W_TYPE] = type;
  hdr[W_RREQ] = rreq;
  hdr[W_SRC] = 0;
  hdr[W_TAG] = 0;
  hdr[W_LEN] = 0;
  hdr[W_SREQ] = sreq;
}

const NAMES = ['?', 'EAGER', 'RTS', 'CTS', 'FIN', 'ACK', 'CANCEL', 'CANCEL_OK'];

/** For traces and test messages; never called on the message path. */
export function describePacket(hdr: Int32Array, at = 0): string {
  const type = packetType(hdr, at);
  const flags = packetFlags(hdr, at) & FLAG_SYNC ? '+SYNC' : '';
  const name = `${NAMES[type] ?? `type${type}`}${flags}`;
  if (type !== PKT_EAGER && type !== PKT_RTS) return `${name} sreq=${hdr[at + W_SREQ]} rreq=${hdr[at + W_RREQ]}`;
  return `${name} ctx=${hdr[at + W_CTX]} src=${hdr[at + W_SRC]} tag=${hdr[at + W_TAG]} len=${packetLength(hdr, at)} ` +
    `sreq=${hdr[at + W_SREQ]}`;
}
