// The reader's progress through the course, kept in localStorage: the stories opened
// (seen) and the stories played to their last caption (completed). Where storage is
// refused (a private window, a sandboxed frame) it lasts as long as the page.

const KEY = 'kraft-playground:progress';

export type StoryState = 'new' | 'seen' | 'completed';

interface Saved {
  seen: string[];
  completed: string[];
}

export class Progress {
  #seen = new Set<string>();
  #completed = new Set<string>();

  constructor() {
    try {
      const saved = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<Saved> | null;
      for (const id of strings(saved?.seen)) this.#seen.add(id);
      for (const id of strings(saved?.completed)) this.#completed.add(id);
    } catch {
      // unreadable or refused: start with nothing
    }
  }

  state(id: string): StoryState {
    return this.#completed.has(id) ? 'completed' : this.#seen.has(id) ? 'seen' : 'new';
  }

  /** Marks `id` seen; true when that is news. */
  markSeen(id: string): boolean {
    if (this.#seen.has(id)) return false;
    this.#seen.add(id);
    this.#save();
    return true;
  }

  /** Marks `id` completed (and seen); true when that is news. */
  markCompleted(id: string): boolean {
    if (this.#completed.has(id)) return false;
    this.#seen.add(id);
    this.#completed.add(id);
    this.#save();
    return true;
  }

  reset(): void {
    this.#seen.clear();
    this.#completed.clear();
    this.#save();
  }

  #save(): void {
    try {
      localStorage.setItem(KEY, JSON.stringify({ seen: [...this.#seen], completed: [...this.#completed] } satisfies Saved));
    } catch {
      // refused: progress lasts as long as the page
    }
  }
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
