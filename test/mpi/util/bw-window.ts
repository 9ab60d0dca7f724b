import { MPI, type Intracomm, type Request } from '../../../src/index.js';

/** osu_bw's window: how many Isends (Irecvs) each window posts before its Waitall. */
export const WINDOW = 64;
const requests = new Array<Request>(WINDOW);
const ack = new Uint8Array(1);

/**
 * `windows` rounds of osu_bw's loop between ranks 0 and 1 of `comm`: rank 0 posts WINDOW Isends
 * of `buf` (tag 7), waits for all of them and for a 1-byte acknowledgement (tag 8); rank 1 posts
 * the matching Irecvs, waits, and acknowledges. Other ranks must not call it.
 */
export function bwWindows(comm: Intracomm, buf: Uint8Array, windows: number): void {
  const rank = comm.rank;
  for (let w = 0; w < windows; w++) {
    if (rank === 0) {
      for (let j = 0; j < WINDOW; j++) requests[j] = comm.Isend(buf, 1, 7);
      MPI.Request.Waitall(requests);
      comm.Recv(ack, 1, 8);
    } else {
      for (let j = 0; j < WINDOW; j++) requests[j] = comm.Irecv(buf, 0, 7);
      MPI.Request.Waitall(requests);
      comm.Send(ack, 0, 8);
    }
  }
}
