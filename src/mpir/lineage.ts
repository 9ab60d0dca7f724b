/**
 * The session each group and communicator derives from (MPI-4.1 §3.6: a session's buffer serves
 * the buffered sends of the communicators made from its groups). A group of Session.Create_group
 * belongs to its session; a group or communicator made from one that belongs to a session
 * belongs to it too (Dup, Idup, Split, Create, topologies, Create_from_group, group algebra,
 * Get_group, Create_intercomm, Merge, Accept and Connect on such a communicator). Objects of the
 * World Model belong to none.
 */
const sessionOfObject = new WeakMap<object, object>();

/** Records that `obj` belongs to `session`; returns `obj`. */
export function belongsTo<T extends object>(obj: T, session: object): T {
  sessionOfObject.set(obj, session);
  return obj;
}

/** `made` belongs to the session of the first of `parents` that has one; returns `made`. */
export function derived<T extends object>(made: T, ...parents: readonly unknown[]): T {
  for (const p of parents) {
    const s = typeof p === 'object' && p !== null ? sessionOfObject.get(p) : undefined;
    if (s !== undefined) {
      sessionOfObject.set(made, s);
      break;
    }
  }
  return made;
}

/** The session `obj` derives from, if any. */
export function sessionOf(obj: object): object | undefined {
  return sessionOfObject.get(obj);
}
