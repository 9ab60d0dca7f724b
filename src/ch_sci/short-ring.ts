// Research ids cited here (e.g. "003b §3.2", "004"): see docs/references.md.
import { copyBytes } from '../common/copy.js';
import { addon } from '../native/addon.js';
import { HEADER_WORDS, type PackedData } from '../mpid/device.js';
import type { SciMap, Sequence } from '../sisci/index.js';

/**
 * One direction of SCI-MPICH's short (control) protocol (003a §2.2), the first part of the
 * ch_sci device: a ring of 128-byte slots in the receiver's exported SCI segment, written only
 * by the sender (remote stores through a mapped remote segment, in one SCIMemCpy per message)
 * and read only by the receiver, so no lock and no remote atomics are needed.
 *
 * Region of one sender in the receiver's segment:
 *   bytes 0..63     control line: word 0 = slots the receiver consumed (the receiver stores it
 *                   locally; the sender loads it remotely, only when its credits run out)
 *   bytes 64..      the ring, `slots` slots of 128 bytes
 *
 * A message takes 1 + ceil(max(0, len - 88) / 128) consecutive slots: the first holds the 32-byte
 * header, up to 88 payload bytes, the CRC-32 (word 30) and the ID word (word 31); the payload
 * continues in the following slots. Header word 0 is the ring's: bits 0-23 payload length (of a
 * SKIP: the slots it fills), bits 24-27 the message's kind (the device's: an mpid packet, or one
 * of its own), bit 31 SKIP; words 1..6 carry the six header words the sender handed over,
 * unread (mpid's opaque header, or the device's own fields); word 7 is spare (zero). A message
 * that would cross the ring's end is preceded by a SKIP message filling the rest of the ring.
 *
 * Arrival: the receiver polls the ID word of the slot where message n must start, expecting
 * id(n) = (n mod 2^30) + 1, which is never equal for two messages in a row at one slot, so the
 * word is never cleared (eq. 4.4). Integrity: a remote store may become visible in parts, and a
 * transmission error may corrupt a byte; the receiver computes the CRC over header and payload
 * and, while it does not match, leaves the message where it is and re-reads it at the next poll
 * (the thesis's "re-read until the CRC matches"), while the sender checks its SCI sequence after
 * every message and writes the whole message again when the check says RETRIABLE. So a message
 * is delivered once, intact, in order.
 */
export const SLOT_BYTES = 128;
export const CONTROL_BYTES = 64;
const HEADER_BYTES = 32;
/** Where the carried header words start in the first slot (after the ring's word 0). */
const CARRIED_AT = 1;
const LEN_MASK = 0xffffff;
const KIND_SHIFT = 24;
const KIND_MASK = 0xf;
const FIRST_PAYLOAD = SLOT_BYTES - HEADER_BYTES - 8;
const SLOT_WORDS = SLOT_BYTES / 4;
const CRC_WORD = 30;
const ID_WORD = 31;
const SKIP = 1 << 31;
const ID_SPACE = 1 << 30;
/** Rewrites of one message before the sender gives up (the hardware's error is then permanent). */
const MAX_RETRIES = 64;

/** Bytes of one sender's region for a ring of `slots` slots. */
export function regionBytes(slots: number): number {
  return CONTROL_BYTES + slots * SLOT_BYTES;
}

/** Slots a message with `len` payload bytes takes. */
export function slotsFor(len: number): number {
  return 1 + (len > FIRST_PAYLOAD ? Math.ceil((len - FIRST_PAYLOAD) / SLOT_BYTES) : 0);
}

function idOf(n: number): number {
  return (n % ID_SPACE) + 1;
}

/** CRC-32 of the header words 0..7 and the payload, as laid out in a message image. */
function messageCrc(image: Uint8Array, at: number, len: number): number {
  const inFirst = len < FIRST_PAYLOAD ? len : FIRST_PAYLOAD;
  let crc = addon.crc32(image, at, HEADER_BYTES + inFirst);
  if (len > inFirst) crc = addon.crc32(image, at + SLOT_BYTES, len - inFirst, crc);
  return crc | 0;
}

export class ShortRingSender {
  readonly counters = { messages: 0, retries: 0, creditReads: 0, skips: 0 };
  private sent = 0;
  private credits: number;
  private messages = 0;
  private readonly image: Uint8Array;
  private readonly imageWords: Int32Array;

  /** `region`: the receiver's region for us (a remote map of regionBytes(slots)); `sequence` of that map. */
  constructor(private readonly region: SciMap, private readonly sequence: Sequence, private readonly slots: number) {
    this.credits = slots;
    this.image = new Uint8Array(slots * SLOT_BYTES);
    this.imageWords = new Int32Array(this.image.buffer);
  }

  /** Largest payload one message can carry (half the ring, so a SKIP always leaves room). */
  get maxPayload(): number {
    return FIRST_PAYLOAD + (Math.floor(this.slots / 2) - 1) * SLOT_BYTES;
  }

  /** Whether a message with `len` payload bytes fits the ring now (refreshing credits remotely if needed). */
  canSend(len: number): boolean {
    const need = slotsFor(len);
    const pos = this.sent % this.slots;
    const skip = pos + need > this.slots ? this.slots - pos : 0;
    return this.credits >= skip + need || this.refreshCredits(skip + need);
  }

  /**
   * Sends a message of `kind` (0..15) carrying header words hdr[0..6) with payload[off, off + len)
   * (or packed bytes [0, len) of `packed`); false when the ring has no room now (nothing was
   * written; try again after the receiver consumed).
   */
  send(kind: number, hdr: Int32Array, payload: Uint8Array | null, off: number, len: number,
       packed: PackedData | null = null): boolean {
    const need = slotsFor(len);
    const pos = this.sent % this.slots;
    const skip = pos + need > this.slots ? this.slots - pos : 0;
    if (this.credits < skip + need && !this.refreshCredits(skip + need)) return false;
    if (skip > 0) {
      this.imageWords.fill(0, 0, SLOT_BYTES / 4);
      this.imageWords[0] = SKIP | skip;
      this.write(pos, 0);
      this.sent += skip;
      this.credits -= skip;
      this.counters.skips++;
    }
    const w = this.imageWords;
    w[0] = len | (kind << KIND_SHIFT);
    for (let i = 0; i < HEADER_WORDS; i++) w[CARRIED_AT + i] = hdr[i]!;
    if (len > 0) {
      // Direct packing: a non-contiguous message is packed straight into the message image.
      const inFirst = len < FIRST_PAYLOAD ? len : FIRST_PAYLOAD;
      if (packed !== null) {
        packed.pack(0, inFirst, this.image, HEADER_BYTES);
        if (len > inFirst) packed.pack(inFirst, len - inFirst, this.image, SLOT_BYTES);
      } else {
        // copyBytes: no view made for a short payload (the short path allocates nothing).
        copyBytes(payload!, off, this.image, HEADER_BYTES, inFirst);
        if (len > inFirst) copyBytes(payload!, off + inFirst, this.image, SLOT_BYTES, len - inFirst);
      }
    }
    this.write(this.sent % this.slots, len);
    this.sent += need;
    this.credits -= need;
    this.counters.messages++;
    return true;
  }

  /** Writes the message in the image (payload length `len`) at slot `pos`, checked, again while RETRIABLE. */
  private write(pos: number, len: number): void {
    const w = this.imageWords;
    w[CRC_WORD] = messageCrc(this.image, 0, len);
    w[ID_WORD] = idOf(this.messages++);
    const bytes = slotsFor(len) * SLOT_BYTES;
    const at = CONTROL_BYTES + pos * SLOT_BYTES;
    this.counters.retries += this.sequence.writeChecked(at, this.image, 0, bytes, MAX_RETRIES);
  }

  /** Loads the receiver's consumed count (a remote load); true when `need` slots are free. */
  private refreshCredits(need: number): boolean {
    this.counters.creditReads++;
    const consumed = Atomics.load(this.region.words, 0);
    this.credits = this.slots - ((this.sent - consumed) | 0);
    return this.credits >= need;
  }
}

/** What the receiver hands a message to: its kind, the carried header words at hdr[at..at+6), payload bytes[off, off + len). */
export type ShortVisit = (kind: number, hdr: Int32Array, at: number, bytes: Uint8Array, off: number, len: number) => void;

export class ShortRingReceiver {
  readonly counters = { messages: 0, crcMismatches: 0 };
  /** Whether the last poll published consumption (a sender waiting for credits may need waking). */
  published = false;
  private read = 0;
  private messages = 0;
  private publishedRead = 0;
  private readonly words: Int32Array;
  /**
   * A message is checked and delivered from a local copy: the sender may be writing it again
   * (its sequence check failed after the data had arrived intact), and a second, damaged copy
   * landing while the first is read must not reach the engine.
   */
  private readonly snapshot: Uint8Array;
  private readonly snapshotWords: Int32Array;
  /** The payload after the first slot's CRC and ID, gathered into one contiguous view. */
  private readonly gather: Uint8Array;

  /** `region`: our region for this sender, in our own segment (a local map of regionBytes(slots)). */
  constructor(region: SciMap, private readonly slots: number) {
    this.words = region.words;
    this.snapshot = new Uint8Array(slots * SLOT_BYTES);
    this.snapshotWords = new Int32Array(this.snapshot.buffer);
    this.gather = new Uint8Array(slots * SLOT_BYTES);
  }

  /** Copies `count` words of the ring from byte `at` into the snapshot from word `to`. */
  private snapWords(at: number, to: number, count: number): void {
    const from = at >> 2;
    const w = this.snapshotWords;
    for (let i = 0; i < count; i++) w[to + i] = this.words[from + i]!;
  }

  /** Hands every complete message to `visit`, in order; returns how many. */
  poll(visit: ShortVisit): number {
    let handled = 0;
    const snap = this.snapshot;
    const w = this.snapshotWords;
    for (;;) {
      const pos = this.read % this.slots;
      const at = CONTROL_BYTES + pos * SLOT_BYTES;
      const id = idOf(this.messages);
      if (Atomics.load(this.words, (at >> 2) + ID_WORD) !== id) break;
      // Word by word: a subarray view per slot was the short path's one allocation (~100 B a message).
      this.snapWords(at, 0, SLOT_WORDS);
      const info = w[0]!;
      const len = info & LEN_MASK;
      const skip = (info & SKIP) !== 0;
      const slots = skip ? len : slotsFor(len);
      // A header that arrived in part or damaged may announce anything: check that it fits the
      // ring before reading that far (the CRC then tells whether it is what was sent).
      const consistent = w[ID_WORD] === id && slots >= 1 && pos + slots <= this.slots;
      if (consistent && slots > 1) this.snapWords(at + SLOT_BYTES, SLOT_WORDS, (slots - 1) * SLOT_WORDS);
      if (!consistent || messageCrc(snap, 0, skip ? 0 : len) !== w[CRC_WORD]) {
        // Not all of it is here yet, or it arrived damaged and the sender is writing it again.
        this.counters.crcMismatches++;
        break;
      }
      if (!skip) {
        let payload = snap;
        let off = HEADER_BYTES;
        if (len > FIRST_PAYLOAD) {
          copyBytes(snap, HEADER_BYTES, this.gather, 0, FIRST_PAYLOAD);
          copyBytes(snap, SLOT_BYTES, this.gather, FIRST_PAYLOAD, len - FIRST_PAYLOAD);
          payload = this.gather;
          off = 0;
        }
        visit((info >>> KIND_SHIFT) & KIND_MASK, w, CARRIED_AT, payload, off, len);
        this.counters.messages++;
        handled++;
      }
      this.read += slots;
      this.messages++;
    }
    // Publish consumption once a quarter of the ring is used, or when the ring ran dry.
    this.published = false;
    if (this.read - this.publishedRead >= (this.slots >> 2) || (handled === 0 && this.read !== this.publishedRead)) {
      this.publishedRead = this.read;
      Atomics.store(this.words, 0, this.read);
      this.published = true;
    }
    return handled;
  }
}
