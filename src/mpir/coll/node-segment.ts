import type { NodeRegion } from '../../mpid/memory.js';
import type { World } from '../../mpid/world.js';
import type { Schedule } from './common.js';

const NAME_BYTES = 128;

/**
 * Rounds of `s` that give `members` (communicator ranks of one node, the creator first) one
 * shared segment of `bytes`: the creator makes it and sends its name to each member; a member
 * maps it and counts itself in at word `joinedWord`; the creator unlinks the name once every
 * member has, so nothing stays in /dev/shm. `got` receives the region on every member, the
 * creator at once, the others when they have mapped it.
 */
export function shareNodeSegment(s: Schedule, world: World, members: readonly number[], bytes: number, joinedWord: number,
                                 got: (region: NodeRegion) => void): void {
  s.round();
  if (members[0] === s.core.rank) {
    const region = world.nodeMemory!.create(world.jobId, world.rank, bytes);
    got(region);
    const name = new Uint8Array(NAME_BYTES);
    name.set(new TextEncoder().encode(region.name));
    for (let i = 1; i < members.length; i++) s.send(name, members[i]!);
    s.poll(() => {
      if (Atomics.load(region.words, joinedWord) < members.length - 1) return false;
      region.unlink();
      return true;
    });
  } else {
    const name = new Uint8Array(NAME_BYTES);
    s.recv(name, members[0]!);
    s.local(() => {
      const end = name.indexOf(0);
      const region = world.nodeMemory!.open(new TextDecoder().decode(name.subarray(0, end < 0 ? NAME_BYTES : end)));
      got(region);
      Atomics.add(region.words, joinedWord, 1);
      world.wakeLocal(s.core.worldRanks[members[0]!]!);
    });
  }
}
