/**
 * The user's memory as the datatype engine sees it: one Uint8Array. Node 20 makes no typed
 * array longer than VIEW_BYTES_MAX, but an ArrayBuffer (or a Float64Array) may be longer, and
 * a derived type's blocks may lie anywhere in it, more than 4 GiB apart. Such memory gets a
 * view of its first VIEW_BYTES_MAX bytes, and the copy walk (cursor.ts) reaches every byte
 * through the view's buffer at absolute offsets (`isWide`); the range checks of the calls use
 * the memory's real length, never the view's.
 */
export const VIEW_BYTES_MAX = 2 ** 32;

/** A byte view of `bytes` bytes of `data` from its start (the first VIEW_BYTES_MAX of them when longer). */
export function userView(data: ArrayBufferView | ArrayBufferLike, bytes: number): Uint8Array {
  const length = bytes < VIEW_BYTES_MAX ? bytes : VIEW_BYTES_MAX;
  return ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, length) : new Uint8Array(data, 0, length);
}

/** Whether bytes of `view`'s buffer lie past what one view can reach: the walk then copies through the buffer. */
export function isWide(view: Uint8Array): boolean {
  return view.buffer.byteLength > VIEW_BYTES_MAX;
}
