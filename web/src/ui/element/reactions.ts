// What events do as they cross "now", besides being drawn: a dropped message leaves a
// ghost on the ring, and a notable event is announced to screen readers.

// the packed reader the API module has (one copy in a page)
import { __PACKED_TYPES as PACKED_TYPES, type PackedBatch, __readRow as readRow, __rowEnd as rowEnd } from '../../api.js';
import type { UiEvent, UiEventOf } from '../common/types.js';
import { type Announcer, announcement } from '../shell/messages.js';

/** Reacts to the events of a frame: drops noted on the ring, announcements made in the live region. */
export function reactTo(batches: PackedBatch[], live: Announcer, ring: { noteDrops(ids: number[]): void }): void {
  const drops: number[] = [];
  for (const { numbers, rest } of batches) {
    for (let i = 0; i < numbers.length; i = rowEnd(numbers, i)) {
      if (PACKED_TYPES[numbers[i]] !== 'drop') continue;
      const e = readRow(numbers, i, rest.names) as UiEventOf<'drop'>;
      drops.push(e.msg);
    }
  }
  for (const e of batches.flatMap((b) => b.rest.events as UiEvent[])) {
    switch (e.type) {
      case 'drop':
        drops.push(e.msg ?? -1);
        break;
      default: {
        const text = announcement(e);
        if (text) live.announce(text);
      }
    }
  }
  if (drops.length) ring.noteDrops(drops);
}
