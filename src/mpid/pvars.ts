/**
 * Performance variables as the layers below the API declare them (MPI_T's pvars): each module
 * that keeps counters exports a static table of what they mean, and mpir's MPI.T
 * (src/mpir/tools/) finds the object that holds them at read time. The counters themselves stay
 * plain number fields incremented in place: a table costs the message path nothing, and
 * `read` runs only when a tool or `tsmpiexec --stats` asks.
 */

/**
 * MPI_T's variable classes that tsmpi uses: a counter only grows (messages, bytes, events); a
 * level is a current amount (queue length); a high-water mark the largest level seen so far.
 */
export type PvarClass = 'counter' | 'level' | 'highwatermark';

export interface PvarSpec<S> {
  /** Unique in the job: the category's name, an underscore, the counter's (`ch_sci_crc_errors`). */
  readonly name: string;
  readonly varClass: PvarClass;
  /** What one unit counts: messages, bytes, events, calls, entries. */
  readonly unit: string;
  readonly description: string;
  /** The current value, from the object that holds the counter. */
  read(source: S): number;
}

/** The performance variables of one layer or device: MPI.T's category of that name. */
export interface PvarTable<S> {
  readonly category: string;
  readonly description: string;
  readonly variables: readonly PvarSpec<S>[];
}

/** A counter of `category`: `${category}_${name}`. */
export function counterSpec<S>(category: string, name: string, unit: string, description: string,
                               read: (source: S) => number): PvarSpec<S> {
  return { name: `${category}_${name}`, varClass: 'counter', unit, description, read };
}
