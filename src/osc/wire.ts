/**
 * The window's requests as they travel to a target's agent (agent.ts sends them, target.ts
 * applies them): the request kind is the message's tag on the window's request context; the
 * message is a header of HEADER_DOUBLES doubles, then a derived target type's blocks, then the
 * data. Replies go on the window's reply context, tagged with the request's id.
 *
 *   double  meaning
 *   0       id (the reply's tag; below POSTED_TAG)
 *   1       byte offset in the target's part (dynamic windows: the absolute address); the
 *           lock type of LOCK and UNLOCK, the value of a header-only request
 *   2       element count
 *   3       element kind (codes.ts)
 *   4       op code (codes.ts), OP_NONE without one
 *   5       0: no data, 1: data follow, REMOTE_PUT: a Get whose result the target writes into
 *           our exported memory (its key and offset follow the header as two doubles)
 *   6       blocks of a derived target type (0: contiguous); (offset, length) doubles follow
 */

/** Request kinds. */
export const PUT = 1;
export const GET = 2;
export const ACC = 3;
export const GET_ACC = 4;
export const CAS = 5;
export const FLUSH = 6;
export const LOCK = 7;
export const UNLOCK = 8;
export const COMPLETE = 9;
/** Several gathered requests in one message: per request kind, length, then its bytes (8-aligned). */
export const BATCH = 10;

/** Tag of POSTED on the reply context (operation ids, the other reply tags, stay below it). */
export const POSTED_TAG = 0x3fffffff;

export const HEADER_DOUBLES = 7;
export const HEADER_BYTES = HEADER_DOUBLES * 8;
/** Header double 5 of a GET served by remote-put (remote-put.ts). */
export const REMOTE_PUT = 2;

/** A request without data: the value in header double 1 (the lock type); the id is set by the sender. */
export function headerOnly(value: number): Uint8Array {
  const msg = new Uint8Array(HEADER_BYTES);
  new Float64Array(msg.buffer, 0, HEADER_DOUBLES)[1] = value;
  return msg;
}
