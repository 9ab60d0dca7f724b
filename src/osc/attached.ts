import { RmaAttachError } from '../common/errors.js';
import { addon } from '../native/addon.js';

/** A region attached to a dynamic window: its bytes, its absolute address, and the user object it was attached as. */
export interface AttachedRegion {
  readonly bytes: Uint8Array;
  readonly address: number;
  readonly owner: object;
}

/**
 * The memory attached to a dynamic window (Win.Create_dynamic): origins address it by absolute
 * address (MPI.Get_address at the target, sent to them), and the target's agent finds the
 * region an operation falls in.
 */
export class AttachedMemory {
  private readonly regions: AttachedRegion[] = [];

  /** Attaches `bytes` (the user's `owner` object); RmaAttachError when it overlaps a region attached before. */
  attach(bytes: Uint8Array, owner: object): void {
    const address = addon.addressOf(bytes);
    for (const a of this.regions) {
      if (address < a.address + a.bytes.length && a.address < address + bytes.length) {
        throw new RmaAttachError(`memory at ${address} overlaps memory attached before`);
      }
    }
    this.regions.push({ bytes, address, owner });
  }

  /** Detaches what was attached as `owner`; RmaAttachError when nothing was. */
  detach(owner: object): void {
    const i = this.regions.findIndex((a) => a.owner === owner);
    if (i < 0) throw new RmaAttachError('this memory is not attached to the window');
    this.regions.splice(i, 1);
  }

  /** The region holding [address, address + span), or null. */
  regionAt(address: number, span: number): AttachedRegion | null {
    for (const a of this.regions) {
      if (address >= a.address && address + span <= a.address + a.bytes.length) return a;
    }
    return null;
  }
}
